// The cost of pysbx mcp as an MCP client sees it (scripts/bench-mcp.sh):
// tools/call of `pass` on a warm session through the official SDK
// (Client over StdioClientTransport), minus the same client's round
// trip to a trivial echo server in the same run; and the server's RSS
// (the pysbx mcp process and its one session process) with one session.
'use strict';
const { createRequire } = require('module');
const fs = require('fs');
const path = require('path');

const [, , NM, PYSBX, N0] = process.argv;
const N = Number(N0 || 300);
const req = createRequire(path.join(NM, 'x.js'));
const { Client } = req('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = req('@modelcontextprotocol/sdk/client/stdio.js');

// A server that answers initialize, tools/list and tools/call at once,
// with the very tools list and call result pysbx gave (so the client does
// the same work on both: parsing, validating structuredContent against
// the outputSchema).
const ECHO = `
const TOOLS = JSON.parse(process.env.ECHO_TOOLS), RESULT = JSON.parse(process.env.ECHO_RESULT);
const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (l) => {
	const m = JSON.parse(l);
	if (m.id === undefined) return;
	let result = {};
	if (m.method === 'initialize')
		result = { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '0' } };
	else if (m.method === 'tools/list')
		result = { tools: TOOLS };
	else if (m.method === 'tools/call')
		result = RESULT;
	process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
});`;

function median(a) {
	const s = [...a].sort((x, y) => x - y);
	return s[s.length >> 1];
}

let tools, result;

async function rounds(command, args, env) {
	const t = new StdioClientTransport({ command, args, stderr: 'inherit', env: { ...process.env, ...env } });
	const c = new Client({ name: 'bench', version: '0' });
	await c.connect(t);
	tools = (await c.listTools()).tools;
	const times = [];
	for (let i = 0; i < N + 20; i++) {
		const t0 = process.hrtime.bigint();
		result = await c.callTool({ name: 'python', arguments: { code: 'pass' } });
		if (i >= 20)
			times.push(Number(process.hrtime.bigint() - t0) / 1e6);
	}
	let rss = null;
	if (t.pid) {
		const kb = (pid) => Number((fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/) || [0, 0])[1]);
		const kids = fs.readFileSync(`/proc/${t.pid}/task/${t.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
		rss = { server: kb(t.pid), sessions: kids.map(kb) };
	}
	await c.close();
	return { median: median(times), rss };
}

(async () => {
	const mcp = await rounds(PYSBX, ['mcp', '--workspace', process.cwd()], {});
	const echo = await rounds(process.execPath, ['-e', ECHO],
		{ ECHO_TOOLS: JSON.stringify(tools), ECHO_RESULT: JSON.stringify(result) });
	const sess = mcp.rss.sessions.reduce((a, b) => a + b, 0);
	console.log(JSON.stringify({
		n: N,
		echoMedianMs: echo.median,
		mcpMedianMs: mcp.median,
		mcpMinusClientMs: mcp.median - echo.median,
		serverRssKiB: mcp.rss.server,
		sessionRssKiB: mcp.rss.sessions,
		totalRssKiB: mcp.rss.server + sess,
	}));
})().catch((e) => { console.error(e); process.exit(1); });

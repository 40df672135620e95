// pysbx mcp driven by the official MCP TypeScript SDK (Client over
// StdioClientTransport) and by the MCP Inspector's CLI; prints TAP.
// Run by mcp_sdk.sh with the node_modules directory as argv[2].
'use strict';
const { createRequire } = require('module');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const NM = process.argv[2];
const req = createRequire(path.join(NM, 'x.js'));
const { Client } = req('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = req('@modelcontextprotocol/sdk/client/stdio.js');

const BIN = process.env.PYSBX_BIN;
const PYSBX = path.join(BIN, 'pysbx');
const T = fs.mkdtempSync(path.join(process.env.HOME || os.tmpdir(), 'mcp-sdk.'));
const WS = path.join(T, 'ws');
const PARENT = path.join(T, 'scratch');
fs.mkdirSync(WS);
fs.mkdirSync(PARENT, { mode: 0o700 });

let n = 0, failed = 0;
function ok(cond, desc, ...detail) {
	n++;
	if (cond) {
		console.log(`ok ${n} - ${desc}`);
	} else {
		failed++;
		console.log(`not ok ${n} - ${desc}`);
		for (const d of detail)
			for (const l of String(typeof d === 'string' ? d : JSON.stringify(d)).slice(0, 3000).split('\n'))
				console.log(`#   ${l}`);
	}
	return cond;
}
const text = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
const received = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function connect() {
	const transport = new StdioClientTransport({
		command: PYSBX,
		args: ['mcp', '--workspace', WS, '--scratch-parent', PARENT],
		cwd: WS,
		stderr: 'inherit',
	});
	const client = new Client({ name: 'pysbx-test', version: '0' });
	await client.connect(transport);
	// What the server sent, for the diagnostics of a failure.
	const orig = transport.onmessage;
	transport.onmessage = (m, extra) => {
		received.push(JSON.stringify(m).slice(0, 200));
		if (received.length > 8)
			received.shift();
		orig(m, extra);
	};
	return client;
}

const call = (client, args, opts = {}) =>
	client.callTool({ name: 'python', arguments: args }, undefined,
		{ timeout: 200000, ...opts });

async function main() {
	const client = await connect();
	const info = client.getServerVersion();
	ok(info && info.name === 'pysbx' && client.getServerCapabilities().tools,
		'initialize: the SDK connects, serverInfo and the tools capability', info);

	const { tools } = await client.listTools();
	const py = tools.find((t) => t.name === 'python');
	ok(py && py.inputSchema.type === 'object' && py.outputSchema &&
		py.annotations && py.annotations.readOnlyHint === false,
		'tools/list: python with its schemas and annotations', tools);

	// The SDK checks structuredContent against outputSchema itself.
	let r = await call(client, { code: 'x = 1' });
	r = await call(client, { code: 'x += 1' });
	r = await call(client, { code: 'x * 21' });
	ok(!r.isError && r.structuredContent.value === '42' && text(r).includes('42'),
		'state across three calls (structuredContent valid for outputSchema)', r);

	await call(client, { code: 'name = "a"', session: 'a' });
	await call(client, { code: 'name = "b"', session: 'b' });
	const ra = await call(client, { code: 'name', session: 'a' });
	const rb = await call(client, { code: 'name', session: 'b' });
	const rd = await call(client, { code: 'name' });
	ok(ra.structuredContent.value === "'a'" && rb.structuredContent.value === "'b'" &&
		rd.isError && text(rd).includes('NameError'),
		'two named sessions stay apart (and apart from the default)', ra, rb, rd);

	// Progress: the SDK sends a progressToken when onprogress is given.
	const seen = [];
	// The SDK hands a notification to its handler a microtask after it
	// reads it, but drops the call's progress handler at once when it
	// reads the response: a notification read in the same chunk as the
	// response is lost (SDK 1.32.2). The execute runs a while, so that
	// the one sent when it starts is read long before its end.
	r = await call(client, { code: 'import time\nprint("p1")\ntime.sleep(2)' },
		{ onprogress: (p) => seen.push(p) });
	ok(!r.isError && seen.length >= 1 && typeof seen[0].message === 'string',
		'progress notifications reach the caller that asked', seen, received);

	r = await call(client, { code: 'import time\nprint("before", flush=True)\ntime.sleep(60)', timeoutSeconds: 1 });
	ok(r.isError && r.structuredContent.status === 'timeout' && text(r).includes('before'),
		'a timeout: isError, partial output', r);

	// Cancel mid-run: abort once the execute has started.
	const ac = new AbortController();
	let started = false;
	const p = call(client, { code: 'import time\nwhile True: time.sleep(0.05)', session: 'c' },
		{ signal: ac.signal, onprogress: () => { started = true; } });
	for (let i = 0; i < 600 && !started; i++)
		await sleep(50);
	ac.abort('test');
	let aborted = false;
	try {
		await p;
	} catch (e) {
		aborted = true;
	}
	ok(started && aborted, 'cancel mid-run: the SDK sends notifications/cancelled', started, aborted);
	r = await call(client, { code: '6 * 7', session: 'c' });
	ok(!r.isError && r.structuredContent.value === '42',
		'after the cancel the session serves the next call', r);
	await client.close();

	// The Inspector's CLI.
	const insp = path.join(NM, '.bin', 'mcp-inspector');
	if (!fs.existsSync(insp)) {
		ok(true, '# SKIP the MCP Inspector is not installed');
	} else {
		const base = [insp, '--cli', PYSBX, 'mcp', '--workspace', WS, '--scratch-parent', PARENT];
		let out = spawnSync(process.execPath, [...base, '--method', 'tools/list'],
			{ cwd: WS, encoding: 'utf8', timeout: 200000 });
		let list = null;
		try { list = JSON.parse(out.stdout); } catch (e) { /* reported below */ }
		ok(out.status === 0 && list && list.tools[0].name === 'python',
			'the Inspector CLI lists the tool', out.status, out.stdout, out.stderr);
		out = spawnSync(process.execPath, [...base, '--method', 'tools/call',
			'--tool-name', 'python', '--tool-arg', 'code=6*7'],
			{ cwd: WS, encoding: 'utf8', timeout: 200000 });
		let res = null;
		try { res = JSON.parse(out.stdout); } catch (e) { /* reported below */ }
		ok(out.status === 0 && res && res.structuredContent.value === '42',
			'the Inspector CLI calls it', out.status, out.stdout, out.stderr);
	}
}

main().catch((e) => {
	ok(false, 'the SDK test ran to its end', e && e.stack);
}).finally(() => {
	fs.rmSync(T, { recursive: true, force: true });
	console.log(`1..${n}`);
	process.exit(failed ? 1 : 0);
});

/* The guard's side of the report channel: which records it accepts, and
 * that a hostile or broken line is ignored, never half-trusted. */
#include <string.h>
#include <unistd.h>

#include "guard/guard.h"
#include "tap.h"

static struct report feed(const char *text)
{
	struct report r;

	memset(&r, 0, sizeof(r));
	report_feed(&r, text, strlen(text));
	return r;
}

static void status_text(const struct run_result *res, char *out, size_t len)
{
	int p[2];
	ssize_t n;

	if (pipe(p) < 0) {
		out[0] = '\0';
		return;
	}
	status_exit(p[1], res);
	close(p[1]);
	n = read(p[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(p[0]);
}

int main(void)
{
	struct report r;
	struct run_result res;
	char out[4096];
	int started;

	plan(21);

	memset(&r, 0, sizeof(r));
	{
		const char *line = "{\"stage\":\"mount\",\"event\":"
				   "\"started\",\"pid\":4242}\n";

		started = report_feed(&r, line, strlen(line));
	}
	is_int(started, 1, "a started record is announced");
	is_int(r.started_pid, 4242, "... with pid 1's host pid");

	r = feed("{\"stage\":\"mount\",\"event\":\"started\",\"pid\":1}");
	ok(!r.started, "a line is parsed only once its newline arrived");

	r = feed("{\"stage\":\"target\",\"status\":2816,\"exit\":11,"
		 "\"signal\":0}\n");
	ok(r.have_target && r.target_status == 2816,
	   "the target record gives the raw wait status");

	r = feed("{\"stage\":\"mount\",\"error\":\"unable to mount /usr: "
		 "Operation not permitted\",\"errno\":1,\"code\":111}\n"
		 "{\"stage\":\"exec\",\"error\":\"later\",\"errno\":2,"
		 "\"code\":127}\n");
	is_str(r.fail_stage, "mount", "the first failure record is the cause");
	is_str(r.fail_error, "unable to mount /usr: Operation not permitted",
	       "... with its message");
	ok(r.fail_errno == 1 && r.fail_code == 111, "... errno and code");

	r = feed("{\"stage\":\"exec\",\"error\":\"a \\\"q\\\" \\\\ b\","
		 "\"errno\":0,\"code\":126}\n");
	is_str(r.fail_error, "a \\\"q\\\" \\\\ b",
	       "an escaped message is kept escaped, verbatim");

	r = feed("{\"error\":\"stage\",\"stage\":\"exec\",\"errno\":0,"
		 "\"code\":126}\n");
	is_str(r.fail_stage, "exec", "a value is never taken for a key");

	r = feed("{\"stage\":\"exec\",\"error\":\"x\",\"errno\":0,"
		 "\"code\":300}\n");
	ok(!r.have_fail, "a code out of 0..255 drops the record");

	r = feed("{\"stage\":\"exec\",\"error\":\"x\ty\",\"errno\":0,"
		 "\"code\":1}\n");
	ok(!r.have_fail, "a raw control character drops the record");

	r = feed("{\"stage\":\"target\",\"status\":\"9\"}\n");
	ok(!r.have_target, "a status that is not a number drops the record");

	memset(&r, 0, sizeof(r));
	{
		static char big[10000];

		memset(big, 'a', sizeof(big));
		memcpy(big, "{\"stage\":\"target\",\"status\":9,\"x\":\"", 35);
		report_feed(&r, big, sizeof(big));
		report_feed(&r, "\"}\n{\"stage\":\"target\",\"status\":15}\n",
			    35);
	}
	ok(r.have_target && r.target_status == 15,
	   "an overlong line is dropped whole; the next one counts");

	memset(&res, 0, sizeof(res));
	strcpy(res.stage, "target");
	res.code = 124;
	res.signal = 9;
	res.timeout = true;
	res.wall_ms = 1500;
	status_text(&res, out, sizeof(out));
	is_str(out,
	       "{\"event\":\"exit\",\"stage\":\"target\",\"error\":null,"
	       "\"errno\":0,\"code\":124,\"signal\":9,\"timeout\":true,"
	       "\"wall_ms\":1500,\"user_ms\":0,\"sys_ms\":0,\"max_rss_kb\":0}\n",
	       "the exit record, with null for no error");

	strcpy(res.error, "bad \\\"x\\\"");
	strcpy(res.scratch_error, "left 'm'");
	status_text(&res, out, sizeof(out));
	ok(strstr(out, "\"error\":\"bad \\\"x\\\"\"") != NULL,
	   "an error is written as a JSON string");
	ok(strstr(out, ",\"scratch_error\":\"left 'm'\"}\n") != NULL,
	   "scratch_error appears only when something was left");

	report_init(&r);
	{
		const char *l = "{\"stage\":\"mount\",\"event\":\"sigsys\","
				"\"syscall\":\"mkdir\",\"nr\":83,\"arch\":"
				"\"x86_64\",\"pid\":4,\"comm\":\"sh\","
				"\"target\":false,\"kills\":1}\n"
				"{\"stage\":\"mount\",\"event\":\"sigsys\","
				"\"syscall\":null,\"nr\":39,\"arch\":\"i386\","
				"\"pid\":2,\"comm\":\"p\",\"target\":true,"
				"\"kills\":2}\n";

		report_feed(&r, l, strlen(l));
	}
	ok(r.sigsys.have && r.sigsys.target && r.sigsys.nr == 39 &&
		   !r.sigsys.name[0] && !strcmp(r.sigsys.arch, "i386"),
	   "sigsys: the target's own kill is kept over an earlier one");
	is_int((int)r.sigsys.kills, 2, "... with the count of kills so far");
	report_init(&r);
	{
		const char *l = "{\"stage\":\"mount\",\"event\":\"sigsys\","
				"\"syscall\":\"mk\tdir\",\"nr\":83,\"arch\":"
				"\"x86_64\",\"pid\":4,\"comm\":\"sh\","
				"\"target\":false,\"kills\":1}\n"
				"{\"stage\":\"mount\",\"event\":\"sigsys\","
				"\"syscall\":\"mkdir\",\"nr\":-1,\"arch\":"
				"\"x86_64\",\"pid\":4,\"comm\":\"sh\","
				"\"target\":false,\"kills\":1}\n";

		report_feed(&r, l, strlen(l));
	}
	ok(!r.sigsys.have, "a sigsys record with a control character or a "
	   "bad number is dropped");
	run_result_init(&res);
	strcpy(res.stage, "target");
	res.code = 159;
	res.signal = 31;
	res.sigsys = (struct sigsys_rec){ .have = true, .name = "mkdir",
					  .nr = 83, .arch = "x86_64", .pid = 2,
					  .target = true };
	status_text(&res, out, sizeof(out));
	ok(strstr(out, ",\"syscall\":\"mkdir\",\"syscall_nr\":83,"
		       "\"syscall_arch\":\"x86_64\",\"syscall_pid\":2,"
		       "\"syscall_target\":true}\n") != NULL,
	   "the exit record names the killed syscall");
	res.sigsys.name[0] = '\0';
	status_text(&res, out, sizeof(out));
	ok(strstr(out, ",\"syscall\":null,") != NULL,
	   "... null for a foreign ABI's call");

	return done_testing();
}

/*
 * diag_term_escape: what a terminal could obey is written as \xHH (a file
 * name chosen inside the sandbox reaches the caller's terminal in a
 * diagnostic), while printable UTF-8 stays as it is.
 */
#include "diag/diag.h"
#include "tap.h"

static const char *esc(const char *s)
{
	static char buf[256];

	diag_term_escape(buf, sizeof(buf), s);
	return buf;
}

int main(void)
{
	char small[8];

	plan(9);
	is_str(esc("plain /a b.txt"), "plain /a b.txt", "printable ASCII unchanged");
	is_str(esc("\x1b]52;c;eA==\x07"), "\\x1b]52;c;eA==\\x07",
	       "OSC 52 (ESC ... BEL) escaped");
	is_str(esc("a\nb\rc\td\x7f"), "a\\x0ab\\x0dc\\x09d\\x7f",
	       "newline, CR, tab and DEL escaped");
	is_str(esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	       "UTF-8 letters, the euro sign and an emoji unchanged");
	is_str(esc("\xc2\x9b" "2J"), "\\xc2\\x9b2J", "C1 CSI (U+009B) escaped");
	is_str(esc("\x9b" "2J"), "\\x9b2J", "a raw 8-bit CSI byte escaped");
	is_str(esc("\xc0\xaf \xed\xa0\x80"), "\\xc0\\xaf \\xed\\xa0\\x80",
	       "overlong and surrogate sequences escaped");
	is_str(esc("\xe2\x82"), "\\xe2\\x82", "a truncated sequence escaped");
	diag_term_escape(small, sizeof(small), "\x1b\x1b\x1b");
	is_str(small, "\\x1b", "truncated to fit, never half an escape");
	return done_testing();
}

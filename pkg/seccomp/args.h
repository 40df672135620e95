/* seccomp args: pysbx-seccomp's command line, parsed without exiting so
 * that it can be fuzzed in-process (test/fuzz/fuzz_args.c). */
#ifndef PYSBX_SC_ARGS_H
#define PYSBX_SC_ARGS_H

#include "chain/chain.h"
#include "diag/diag.h"

#define SC_USAGE                                                             \
	"pysbx-seccomp [-p policy] [-D name=value]... [--log] [--bpf FILE]\n" \
	"                     [--export FILE] [--list] [--] prog [arg...]\n"  \
	"  --log          log what the policy would deny instead (audit)\n"  \
	"  --bpf FILE     also load this precompiled BPF program\n"          \
	"  --export FILE  write the compiled BPF (bwrap --seccomp input);\n" \
	"                 '-' is stdout; prog is optional\n"                 \
	"  --list         print the filter for review; prog is optional"

struct sc_opts {
	unsigned flags;		/* SC_COMPILE_AUDIT with --log */
	const char *bpf;	/* --bpf FILE, NULL: none */
	const char *export;	/* --export FILE ("-": stdout), NULL: none */
	int list;		/* --list */
};

/* pysbx-seccomp's command line into c (chain_init'ed with SC_USAGE) and o
 * (all zero). Resets getopt first (optind = 0). Nothing is opened, read
 * or written, except that -h and --version print and exit(0)
 * (chain_opt). On success c->next is the program to run, or NULL when
 * only --export or --list was asked for and no program given. 0, or -1
 * with d set (code 100). */
int sc_parse_args(struct diag *d, struct chain *c, struct sc_opts *o,
		  int argc, char **argv);

#endif

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "util/names.h"
#include "util/num.h"

#define E(x) { #x, x }
static const struct {
	const char *name;
	int value;
} errnos[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR),
	E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(ETXTBSY),
	E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE),
	E(ERANGE), E(ENOSYS), E(ENOTSUP), E(EAFNOSUPPORT), E(EPROTONOSUPPORT),
	E(ECONNREFUSED), E(ENETUNREACH), E(ELOOP), E(ENAMETOOLONG),
	E(ENOTEMPTY), E(EDQUOT),
};

static const struct {
	const char *name;
	int value;
} signals[] = {
	E(SIGHUP), E(SIGINT), E(SIGQUIT), E(SIGILL), E(SIGTRAP), E(SIGABRT),
	E(SIGBUS), E(SIGFPE), E(SIGKILL), E(SIGUSR1), E(SIGSEGV), E(SIGUSR2),
	E(SIGPIPE), E(SIGALRM), E(SIGTERM), E(SIGCHLD), E(SIGCONT),
	E(SIGSTOP), E(SIGTSTP), E(SIGTTIN), E(SIGTTOU), E(SIGURG), E(SIGXCPU),
	E(SIGXFSZ), E(SIGVTALRM), E(SIGPROF), E(SIGWINCH), E(SIGIO),
	E(SIGPWR), E(SIGSYS),
};
#undef E

#define N(a) (sizeof(a) / sizeof((a)[0]))

int errno_by_name(const char *name)
{
	long v;

	for (size_t i = 0; i < N(errnos); i++)
		if (!strcmp(errnos[i].name, name))
			return errnos[i].value;
	if (num_int(name, 1, 4095, &v) == NUM_OK)
		return (int)v;
	return -1;
}

const char *errno_name(int err)
{
	for (size_t i = 0; i < N(errnos); i++)
		if (errnos[i].value == err)
			return errnos[i].name;
	return NULL;
}

int signal_by_name(const char *name)
{
	long v;

	for (size_t i = 0; i < N(signals); i++)
		if (!strcmp(signals[i].name, name) ||
		    !strcmp(signals[i].name + 3, name))
			return signals[i].value;
	if (num_int(name, 1, 64, &v) == NUM_OK)
		return (int)v;
	return -1;
}

const char *signal_name(int sig)
{
	for (size_t i = 0; i < N(signals); i++)
		if (signals[i].value == sig)
			return signals[i].name;
	return NULL;
}

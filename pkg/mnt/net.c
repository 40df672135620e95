/* The network namespace starts with a loopback device that is down. */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mnt/internal.h"

int mnt_lo_up(struct diag *d)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to open a socket to bring up lo");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	/* Up is enough: the kernel gives a loopback device 127.0.0.1/8 and
	 * ::1 when it comes up. */
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0 ||
	    (ifr.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &ifr) < 0)) {
		int e = errno;

		close(s);
		return diag_fail(d, EXIT_SYSCALL, e,
				 "unable to bring up lo in the network "
				 "namespace");
	}
	close(s);
	return 0;
}

/* pysbx-mount's part of the egress proxy: pid 1, already in the sandbox's
 * network namespace with lo up, makes the listener there and hands it to
 * the proxy process outside. The socket keeps the namespace it was made
 * in, wherever its fd goes; nothing inside the sandbox ever holds it. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress/egress.h"

static int send_fd(int chan, int fd)
{
	char byte = 'L';
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	ssize_t r;

	memset(&u, 0, sizeof(u));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	do
		r = sendmsg(chan, &m, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

int egress_listen_send(struct diag *d, int chan, unsigned port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s, e;

	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0) {
		e = errno;
		close(chan);
		return diag_fail(d, EXIT_SYSCALL, e,
				 "unable to create the proxy's listener");
	}
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(s, 128) < 0) {
		e = errno;
		close(s);
		close(chan);
		return diag_fail(d, EXIT_SYSCALL, e,
				 "unable to listen on 127.0.0.1:%u in the "
				 "sandbox's network namespace", port);
	}
	if (send_fd(chan, s) < 0) {
		e = errno;
		close(s);
		close(chan);
		return diag_fail(d, EXIT_SYSCALL, e,
				 "unable to hand the proxy's listener to the "
				 "guard");
	}
	close(s);
	close(chan);
	return 0;
}

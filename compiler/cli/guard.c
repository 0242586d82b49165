/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The crash guard of `vta compile` and `vta opt` (vc_guard_install): with
 * --reproducer, a crash in a pass writes the reproducer from a signal
 * handler. It lives with the tools, not in the pass manager: the handler
 * needs the reproducer text in a static, the one piece of process state of
 * the compiler.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static const char *guard_path;
static char *volatile guard_text;
static volatile size_t guard_len;

static void guard_signal(int sig)
{
	char *t = guard_text;
	if (t && guard_path) {
		int fd = open(guard_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			for (size_t k = 0; k < guard_len;) {
				ssize_t w = write(fd, t + k, guard_len - k);
				if (w <= 0)
					break;
				k += (size_t)w;
			}
			close(fd);
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void guard_set(void *ctx, const char *repro, size_t len)
{
	(void)ctx;
	char *old = guard_text, *copy = NULL;
	if (repro && (copy = malloc(len)))
		memcpy(copy, repro, len);
	guard_text = NULL;
	guard_len = copy ? len : 0;
	guard_text = copy;
	free(old);
}

void vc_guard_install(vc_instr *in)
{
	if (!in->reproducer)
		return;
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	guard_path = in->reproducer;
	in->guard = guard_set;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = guard_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

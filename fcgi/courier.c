/* SPDX-License-Identifier: Apache-2.0 */
/*
 * courier: callbacks and the results' sweep (see courier.h).
 *
 * Why a process of its own: a callback waits on someone else's server, for
 * seconds when it is slow; a worker waiting there would hold a slot.  The
 * courier holds none, and one slow target delays only other callbacks.
 * Why the target named is the target reached: RUN_CALLBACK_ALLOW is
 * checked when the submission is taken and again here (the setting may
 * have changed since), and libcurl follows no redirect, uses no proxy
 * from the environment, and speaks only http and https.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "async.h"
#include "courier.h"
#include "metrics.h"
#include "judge0/judge0.h"
#include "queue/callback.h"
#include "queue/queue.h"
#include "util/util.h"

#define CALLBACK_TRIES 3          /* Judge0's CALLBACKS_MAX_TRIES */
#define CALLBACK_TIMEOUT_S 5      /* Judge0's CALLBACKS_TIMEOUT */
#define CALLBACK_PAUSE_MS 1000    /* between two tries */
#define SWEEP_EVERY_MS 5000
#define IDLE_MS 200

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

/* One PUT of body to url: its HTTP status, or 0 when none came back. */
static long put_once(const char *url, const char *body, size_t len)
{
	CURL *c = curl_easy_init();
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	long status = 0;

	if (!c || !hdr) {
		curl_slist_free_all(hdr);
		curl_easy_cleanup(c);
		return 0;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)CALLBACK_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROXY, "");
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "gaol-courier");
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	return status;
}

/* Judge0's callback body of a result: base64, the default fields. */
static char *callback_body(struct json_object *result, size_t *len)
{
	struct json_object *out = NULL;
	const char *s;
	char *body;

	if (judge0_format(result, "", true, &out) != JUDGE0_FORMAT_OK)
		return NULL;
	s = json_object_to_json_string_length(out, JSON_C_TO_STRING_PLAIN, len);
	body = s ? strdup(s) : NULL;
	json_object_put(out);
	return body;
}

/* Sends token's callback, its tries bounded: true when a 2xx came back. */
static bool send_callback(const struct engine *e, const char *token,
			  struct json_object *result)
{
	struct json_object *url;
	char why[512], *body;
	size_t len = 0;
	bool sent = false;

	if (!json_object_object_get_ex(result, "callback_url", &url) ||
	    !json_object_is_type(url, json_type_string))
		return false;
	if (!callback_allowed(e->cfg.callback_allow, json_object_get_string(url), why,
			      sizeof why)) {
		fprintf(stderr, "gaol-courier: %s: callback_url %s\n", token, why);
		return false;
	}
	if (!(body = callback_body(result, &len)))
		return false;
	for (int i = 0; i < CALLBACK_TRIES && !sent; i++) {
		long status;

		if (i)
			pause_ms(CALLBACK_PAUSE_MS);
		status = put_once(json_object_get_string(url), body, len);
		sent = status >= 200 && status < 300;
		if (!sent && e->cfg.debug)
			fprintf(stderr, "gaol-courier: %s: try %d: status %ld\n", token,
				i + 1, status);
	}
	free(body);
	return sent;
}

/* The oldest callback marked: sent (or given up) and unmarked.  false
 * when there is none to send now. */
static bool deliver_one(const struct engine *e, struct queue *q)
{
	char token[TOKEN_LEN + 1], *text;
	struct json_object *result;
	enum queue_state st;
	bool sent;

	if (!queue_next_callback(q, token))
		return false;
	st = queue_find(q, token, 0);
	if (st == Q_QUEUED || st == Q_RUNNING)
		return false;   /* marked just before its result: soon */
	text = st == Q_DONE ? queue_read(q, Q_DONE, token, NULL) : NULL;
	result = text ? json_tokener_parse(text) : NULL;
	free(text);
	sent = result && send_callback(e, token, result);
	if (result)
		metrics_callback(sent);
	json_object_put(result);
	if (queue_forget_callback(q, token) < 0)
		fprintf(stderr, "gaol-courier: unmark %s errno=%d\n", token, errno);
	return true;
}

static void courier_main(const struct engine *e, pid_t master)
{
	struct queue *q = async_queue();
	long long swept = 0;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	while (getppid() == master) {
		unsigned long long kept, bytes;

		if (now_ms() - swept >= SWEEP_EVERY_MS) {
			queue_sweep(q, e->cfg.result_ttl_ms / 1000, e->cfg.result_max,
				    &kept, &bytes);
			metrics_results(kept, bytes);
			swept = now_ms();
		}
		if (!deliver_one(e, q))
			pause_ms(IDLE_MS);
	}
	curl_global_cleanup();
}

pid_t courier_start(const struct engine *e, pid_t master, int stop_w)
{
	pid_t pid;

	if (!async_queue()) {
		errno = ENOENT;
		return -1;
	}
	pid = fork();
	if (pid != 0)
		return pid;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != master)
		_exit(1);
	prctl(PR_SET_NAME, "gaol-courier");
	if (stop_w >= 0)
		close(stop_w);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	courier_main(e, master);
	_exit(0);
}

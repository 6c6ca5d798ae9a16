/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POST /execute's pure parts: the files parser (names, encodings, limits),
 * SemVer selectors against real versions, the version read from a probe's
 * output, and the request's own checks (docs/api.md, "POST /execute").
 */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "execute/execute.h"
#include "api/files.h"
#include "conf/config.h"
#include "judge0/internal.h"
#include "judge0/judge0.h"
#include "judge0/words.h"
#include "lang/semver.h"
#include "suites.h"

static bool name_ok(const char *s)
{
	return files_name_ok(s, strlen(s));
}

START_TEST(files_names_are_relative_paths_of_plain_parts)
{
	ck_assert(name_ok("main.py"));
	ck_assert(name_ok("pkg/sub/mod.py"));
	ck_assert(name_ok("$(id).py"));
	ck_assert(name_ok("; rm -rf x"));
	ck_assert(name_ok("-leading-dash.c"));
	ck_assert(name_ok("a/b/c/d/e/f/g/h"));          /* 8 deep */
	ck_assert(!name_ok("a/b/c/d/e/f/g/h/i"));       /* 9 */
	ck_assert(!name_ok("../x"));
	ck_assert(!name_ok("a/../x"));
	ck_assert(!name_ok("a/./x"));
	ck_assert(!name_ok("."));
	ck_assert(!name_ok("/etc/passwd"));
	ck_assert(!name_ok("a//b"));
	ck_assert(!name_ok("a/"));
	ck_assert(!name_ok(""));
	ck_assert(!name_ok("tab\there"));
	ck_assert(!files_name_ok("a\0b", 3));
	char part[300];
	memset(part, 'x', sizeof(part) - 1);
	part[sizeof(part) - 1] = 0;
	ck_assert(!name_ok(part));                      /* a part over 255 */
}
END_TEST

static int decode(const char *enc, const char *s, char **out, size_t *len)
{
	char err[128];
	return files_decode(enc, s, strlen(s), out, len, err, sizeof(err));
}

START_TEST(files_decode_base64_and_hex_strictly)
{
	char *out;
	size_t len;
	ck_assert_int_eq(decode("base64", "AAH/", &out, &len), 0);
	ck_assert_int_eq(len, 3);
	ck_assert(out[0] == 0 && out[1] == 1 && (unsigned char)out[2] == 0xff);
	free(out);
	ck_assert_int_eq(decode("base64", "aGk=", &out, &len), 0);
	ck_assert(len == 2 && !memcmp(out, "hi", 2));
	free(out);
	ck_assert_int_eq(decode("base64", "aA==", &out, &len), 0);
	ck_assert(len == 1 && out[0] == 'h');
	free(out);
	ck_assert_int_eq(decode("base64", "", &out, &len), 0);
	ck_assert_int_eq(len, 0);
	free(out);
	ck_assert_int_eq(decode("base64", "aGk", &out, &len), -1);     /* no padding */
	ck_assert_int_eq(decode("base64", "a=Gk", &out, &len), -1);
	ck_assert_int_eq(decode("base64", "aG!=", &out, &len), -1);
	ck_assert_int_eq(decode("hex", "00fFa0", &out, &len), 0);
	ck_assert(len == 3 && (unsigned char)out[1] == 0xff && (unsigned char)out[2] == 0xa0);
	free(out);
	ck_assert_int_eq(decode("hex", "abc", &out, &len), -1);
	ck_assert_int_eq(decode("hex", "zz", &out, &len), -1);
	ck_assert_int_eq(decode("rot13", "x", &out, &len), -2);
}
END_TEST

static int parse(const char *json, size_t max, struct req_files *f, char *err)
{
	struct json_object *o = json_tokener_parse(json);
	int rc = files_parse(o, max, f, err, 256);
	json_object_put(o);
	return rc;
}

START_TEST(files_parse_names_the_field_and_names_the_unnamed)
{
	struct req_files f;
	char err[256];
	ck_assert_int_eq(parse("[{\"content\": \"a\"}, {\"content\": \"b\"}, "
			       "{\"name\": \"x/y.py\", \"content\": \"eA==\", \"encoding\": \"base64\"}]",
			       64, &f, err), 0);
	ck_assert_int_eq(files_name(&f, "Main.java", err, sizeof(err)), 0);
	ck_assert_str_eq(f.v[0].name, "Main.java");
	ck_assert_str_eq(f.v[1].name, "file1.code");
	ck_assert_str_eq(f.v[2].name, "x/y.py");
	ck_assert_str_eq(f.v[2].data, "x");
	files_free(&f);
	ck_assert_int_eq(parse("[{\"content\": \"a\"}, {\"content\": \"b\"}]", 1, &f, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "RUN_FILES_MAX"));
	ck_assert_int_eq(parse("[]", 64, &f, err), -1);
	ck_assert_int_eq(parse("[{\"name\": \"a\"}]", 64, &f, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "files[0].content"));
	ck_assert_int_eq(parse("[{\"content\": \"a\"}, {\"name\": \"../a\", \"content\": \"\"}]",
			       64, &f, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "files[1].name"));
	ck_assert_int_eq(parse("[{\"content\": 1}]", 64, &f, err), -1);
	ck_assert_int_eq(parse("{}", 64, &f, err), -1);
	/* The same name twice, and a file where another needs a directory. */
	ck_assert_int_eq(parse("[{\"name\": \"a\", \"content\": \"\"}, {\"name\": \"a\", "
			       "\"content\": \"\"}]", 64, &f, err), 0);
	ck_assert_int_eq(files_name(&f, "main", err, sizeof(err)), -1);
	files_free(&f);
	ck_assert_int_eq(parse("[{\"name\": \"a\", \"content\": \"\"}, {\"name\": \"a/b\", "
			       "\"content\": \"\"}]", 64, &f, err), 0);
	ck_assert_int_eq(files_name(&f, "main", err, sizeof(err)), -1);
	files_free(&f);
	ck_assert_int_eq(parse("[{\"name\": \"ab\", \"content\": \"\"}, {\"name\": \"a/b\", "
			       "\"content\": \"\"}]", 64, &f, err), 0);
	ck_assert_int_eq(files_name(&f, "main", err, sizeof(err)), 0);
	files_free(&f);
}
END_TEST

START_TEST(semver_selectors_match_as_node_semver_does)
{
	ck_assert(semver_satisfies("3.11.2", "*"));
	ck_assert(semver_satisfies("3.11.2", "3"));
	ck_assert(semver_satisfies("3.11.2", "3.x"));
	ck_assert(semver_satisfies("3.11.2", "3.11"));
	ck_assert(semver_satisfies("3.11.2", "3.11.2"));
	ck_assert(semver_satisfies("3.11.2", "=3.11.2"));
	ck_assert(!semver_satisfies("3.11.2", "3.11.3"));
	ck_assert(!semver_satisfies("3.11.2", "2.x"));
	ck_assert(!semver_satisfies("3.11.2", "3.12"));
	ck_assert(semver_satisfies("3.11.2", ">=3.9"));
	ck_assert(!semver_satisfies("3.11.2", ">3.11"));
	ck_assert(semver_satisfies("3.11.2", ">3.10"));
	ck_assert(semver_satisfies("3.11.2", "<4"));
	ck_assert(!semver_satisfies("3.11.2", "<3.11.2"));
	ck_assert(semver_satisfies("3.11.2", "<=3.11"));
	ck_assert(semver_satisfies("3.11.2", "^3.9"));
	ck_assert(!semver_satisfies("4.0.0", "^3.9"));
	ck_assert(!semver_satisfies("0.3.0", "^0.2"));
	ck_assert(semver_satisfies("3.11.2", "~3.11.0"));
	ck_assert(!semver_satisfies("3.12.0", "~3.11.0"));
	ck_assert(semver_satisfies("3.11.2", ">=3.9 <4"));
	ck_assert(!semver_satisfies("3.11.2", ">=3.9 <3.10"));
	ck_assert(semver_satisfies("3.11.2", "2.x || 3.x"));
	ck_assert(!semver_satisfies("3.11.2", "abc"));
	ck_assert(!semver_satisfies("3.11.2", "3.x.y"));
}
END_TEST

START_TEST(semver_read_from_a_probe)
{
	char *v = semver_read("Python 3.11.2\n", "Python ([0-9]+[.][0-9]+[.][0-9]+)");
	ck_assert_str_eq(v, "3.11.2");
	free(v);
	v = semver_read("gcc (Debian 12.2.0-14) 12.2.0\n", "[)] ([0-9]+[.][0-9]+[.][0-9]+)");
	ck_assert_str_eq(v, "12.2.0");
	free(v);
	v = semver_read("go version go1.19.8 linux/amd64\n", "go([0-9]+[.][0-9]+([.][0-9]+)?)");
	ck_assert_str_eq(v, "1.19.8");
	free(v);
	v = semver_read("javac 17\n", "javac ([0-9]+([.][0-9]+)*)");
	ck_assert_str_eq(v, "17.0.0");
	free(v);
	v = semver_read("v20.20.2", NULL);
	ck_assert_str_eq(v, "20.20.2");
	free(v);
	ck_assert_ptr_null(semver_read("no version here", NULL));
	ck_assert_ptr_null(semver_read(NULL, NULL));
}
END_TEST

static int req(const char *body, struct exec_request *r, char *err)
{
	struct gaol_config cfg = { .files_max = 64 };
	return exec_request_parse(&cfg, body, strlen(body), r, err, 256);
}

START_TEST(execute_request_defaults_and_refusals)
{
	struct exec_request r;
	char err[256];
	ck_assert_int_eq(req("{\"language\": \"py\", \"files\": [{\"content\": \"1\"}], "
			     "\"args\": [\"a\", \"$(id)\"], \"stdin\": \"in\"}", &r, err), 0);
	ck_assert_str_eq(r.version, "*");
	ck_assert_int_eq(r.run.timeout_ms, EXEC_RUN_TIMEOUT_MS);
	ck_assert_int_eq(r.compile.timeout_ms, EXEC_COMPILE_TIMEOUT_MS);
	ck_assert_int_eq(r.run.cpu_ms, EXEC_RUN_TIMEOUT_MS);
	ck_assert_int_eq(r.run.memory, -1);
	ck_assert_int_eq(r.n_args, 2);
	ck_assert_str_eq(r.args[1], "$(id)");
	ck_assert_ptr_null(r.args[2]);
	ck_assert_str_eq(r.stdin_data.data, "in");
	exec_request_free(&r);
	static const char *const bad[][2] = {
		{ "{\"files\": [{\"content\": \"1\"}]}", "language" },
		{ "{\"language\": \"py\"}", "files" },
		{ "{\"language\": \"py\", \"files\": [{\"content\": \"1\"}], \"args\": [1]}", "args[0]" },
		{ "{\"language\": \"py\", \"files\": [{\"content\": \"1\"}], \"args\": \"a\"}", "args" },
		{ "{\"language\": \"py\", \"files\": [{\"content\": \"1\"}], \"run_timeout\": 0}",
		  "run_timeout" },
		{ "{\"language\": \"py\", \"files\": [{\"content\": \"1\"}], \"run_memory_limit\": -2}",
		  "run_memory_limit" },
		{ "{\"language\": \"py\", \"files\": [{\"content\": \"1\"}], \"output_encoding\": \"x\"}",
		  "output_encoding" },
		{ "[1]", "JSON object" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(req(bad[i][0], &r, err), -1);
		ck_assert_msg(strstr(err, bad[i][1]), "%s: %s", bad[i][0], err);
	}
}
END_TEST


/* ---- Judge0's front (core/judge0/): its pure parts ---- */

static void words_are(const char *line, const char *const *want, size_t n)
{
	struct judge0_words w;
	ck_assert_int_eq(judge0_words_split(line, &w), 0);
	ck_assert_uint_eq(w.n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(w.v[i], want[i]);
	judge0_words_free(&w);
}

START_TEST(judge0_words_split_as_a_shell_without_expansion)
{
	static const char *const a[] = { "a", "b c", "d $HOME", "$(id)", "*", "e\"f", "" };
	words_are("a 'b c' \"d $HOME\" $(id) * e\\\"f ''", a, 7);
	static const char *const b[] = { "x\\y", "q\"z" };
	words_are("  'x\\y'\t\"q\\\"z\"  ", b, 2);
	words_are("", NULL, 0);
	struct judge0_words w;
	ck_assert_int_eq(judge0_words_split("'open", &w), -2);
	ck_assert_int_eq(judge0_words_split("\"open", &w), -2);
}
END_TEST

/* A stored zip with one entry named name declaring usize bytes. */
static size_t zip_one(unsigned char *z, const char *name, unsigned long csize,
		      unsigned long usize)
{
	size_t n = strlen(name), off = 0;
	memset(z, 0, 46 + n + 22);
	unsigned char *c = z;
	c[0] = 0x50, c[1] = 0x4b, c[2] = 1, c[3] = 2;
	for (int i = 0; i < 4; i++) {
		c[20 + i] = (unsigned char)(csize >> (8 * i));
		c[24 + i] = (unsigned char)(usize >> (8 * i));
	}
	c[28] = (unsigned char)n;
	memcpy(c + 46, name, n);
	off = 46 + n;
	unsigned char *e = z + off;
	e[0] = 0x50, e[1] = 0x4b, e[2] = 5, e[3] = 6;
	e[10] = 1;
	e[12] = (unsigned char)off;
	return off + 22;
}

START_TEST(judge0_zip_names_and_sizes_are_checked_from_the_directory)
{
	unsigned char z[400];
	char err[256];
	size_t len = zip_one(z, "pkg/mod.py", 10, 20);
	ck_assert_int_eq(judge0_zip_check(z, len, 64, 1 << 20, err, sizeof(err)), 0);
	len = zip_one(z, "dir/", 0, 0);
	ck_assert_int_eq(judge0_zip_check(z, len, 64, 1 << 20, err, sizeof(err)), 0);
	const char *bad[] = { "../x", "/etc/passwd", "a/../../b", "a//b", "." };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = zip_one(z, bad[i], 1, 1);
		ck_assert_int_eq(judge0_zip_check(z, len, 64, 1 << 20, err, sizeof(err)), -1);
	}
	len = zip_one(z, "bomb", 100, 10000000);
	ck_assert_int_eq(judge0_zip_check(z, len, 64, 1ULL << 30, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "zip bomb"));
	len = zip_one(z, "big", 100000, 2000000);
	ck_assert_int_eq(judge0_zip_check(z, len, 64, 1 << 20, err, sizeof(err)), -1);
	ck_assert_int_eq(judge0_zip_check((const unsigned char *)"PK nothing", 10, 64, 1,
					  err, sizeof(err)), -1);
}
END_TEST

START_TEST(judge0_statuses_and_query)
{
	ck_assert_str_eq(judge0_status_name(3), "Accepted");
	ck_assert_str_eq(judge0_status_name(14), "Exec Format Error");
	ck_assert_ptr_null(judge0_status_name(0));
	ck_assert_ptr_null(judge0_status_name(15));
	struct judge0_query q;
	struct answer a = { 0 };
	ck_assert_int_eq(judge0_query_parse("wait=true&base64_encoded=true&fields=stdout%2Cstatus",
					    &q, &a), 0);
	ck_assert(q.wait && q.base64_encoded);
	ck_assert_str_eq(q.fields, "stdout,status");
	ck_assert_int_eq(judge0_query_parse("wait=1&fields=*", &q, &a), 0);
	ck_assert(!q.wait && !q.base64_encoded);
	ck_assert_int_eq(judge0_query_parse("fields=stdout,bogus", &q, &a), -1);
	ck_assert_int_eq(a.outcome, OUTCOME_BAD_REQUEST);
	ck_assert_ptr_nonnull(strstr(a.body, "invalid fields: [bogus]"));
	answer_free(&a);
}
END_TEST

START_TEST(judge0_format_fields_and_encoding)
{
	struct json_object *r = json_tokener_parse(
		"{\"token\":\"t\",\"stdout\":\"aGk=\",\"stderr\":null,\"status\":{\"id\":3,"
		"\"description\":\"Accepted\"},\"cpu_time_limit\":5,\"message\":\"m\"}"), *out;
	ck_assert_int_eq(judge0_format(r, "", false, &out), JUDGE0_FORMAT_OK);
	ck_assert_int_eq(json_object_object_length(out), 8);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(out, "stdout")), "hi");
	json_object_put(out);
	ck_assert_int_eq(judge0_format(r, "stdout,message,status_id,cpu_time_limit", true, &out),
			 JUDGE0_FORMAT_OK);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(out, "stdout")), "aGk=");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(out, "message")), "bQ==");
	ck_assert_int_eq(json_object_get_int(json_object_object_get(out, "status_id")), 3);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(out, "cpu_time_limit")),
			 "5.0");
	json_object_put(out);
	json_object_object_add(r, "stdout", json_object_new_string("//4="));  /* ff fe */
	ck_assert_int_eq(judge0_format(r, "", false, &out), JUDGE0_FORMAT_NOT_UTF8);
	json_object_put(r);
}
END_TEST

Suite *execute_suite(void)
{
	Suite *s = suite_create("execute");
	TCase *tc = tcase_create("files");
	tcase_add_test(tc, files_names_are_relative_paths_of_plain_parts);
	tcase_add_test(tc, files_decode_base64_and_hex_strictly);
	tcase_add_test(tc, files_parse_names_the_field_and_names_the_unnamed);
	suite_add_tcase(s, tc);
	tc = tcase_create("semver");
	tcase_add_test(tc, semver_selectors_match_as_node_semver_does);
	tcase_add_test(tc, semver_read_from_a_probe);
	suite_add_tcase(s, tc);
	tc = tcase_create("request");
	tcase_add_test(tc, execute_request_defaults_and_refusals);
	suite_add_tcase(s, tc);
	tc = tcase_create("judge0");
	tcase_add_test(tc, judge0_words_split_as_a_shell_without_expansion);
	tcase_add_test(tc, judge0_zip_names_and_sizes_are_checked_from_the_directory);
	tcase_add_test(tc, judge0_statuses_and_query);
	tcase_add_test(tc, judge0_format_fields_and_encoding);
	suite_add_tcase(s, tc);
	return s;
}

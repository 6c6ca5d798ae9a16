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
	return s;
}

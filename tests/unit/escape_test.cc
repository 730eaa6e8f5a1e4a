// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The escaping of names that users choose (src/out/escape.c): terminal, JSON, CSV and
// Prometheus; one reversible mapping (ms_unesc) of invalid UTF-8 and the backslash; printable
// UTF-8 unchanged. And where names are printed: a --by fs table, JSON and Prometheus series
// of hostile mount points, and allpages --cgroup given a path as --by cgroup prints it.
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "capture.h"

extern "C" {
#include "memstat_int.h"
#include "groups.h"
#include "groups_int.h"
#include "report.h"
#include "cgroup.h"
#include "escape.h"
#include "json.h"
}

namespace {

using json = nlohmann::json;

std::string esc(const std::string &s, ms_esc_fmt how)
{
	size_t len = ms_esc(nullptr, 0, s.data(), s.size(), how);
	std::string out(len + 1, '\0');

	EXPECT_EQ(ms_esc(&out[0], out.size(), s.data(), s.size(), how), len);
	out.resize(len);
	return out;
}

std::string unesc(std::string s)
{
	size_t n = ms_unesc(&s[0]);

	s.resize(n);
	return s;
}

// what a JSON reader decodes from the escaped text (it must parse)
std::string json_value(const std::string &s)
{
	return json::parse("\"" + esc(s, MS_ESC_JSON) + "\"").get<std::string>();
}

// a Prometheus label value as the exposition format decodes it: \\, \" and \n
std::string prom_value(const std::string &e)
{
	std::string out;

	for (size_t i = 0; i < e.size(); i++) {
		if (e[i] == '\\' && i + 1 < e.size()) {
			char c = e[++i];

			out += c == 'n' ? '\n' : c;
			EXPECT_TRUE(c == 'n' || c == '\\' || c == '"') << "not an exposition escape: " << c;
		} else {
			EXPECT_NE(e[i], '"') << "an unescaped quote ends the label value";
			EXPECT_NE(e[i], '\n') << "a raw newline ends the line";
			out += e[i];
		}
	}
	return out;
}

// a CSV field as RFC 4180 decodes it, less the leading ' of a formula
std::string csv_value(const std::string &e)
{
	std::string out;

	if (!e.empty() && e[0] == '"') {
		EXPECT_GE(e.size(), 2u);
		EXPECT_EQ(e.back(), '"');
		for (size_t i = 1; i + 1 < e.size(); i++) {
			if (e[i] == '"') {
				EXPECT_EQ(e[i + 1], '"') << "a lone quote inside a quoted field";
				i++;
			}
			out += e[i];
		}
	} else {
		EXPECT_EQ(e.find_first_of(",\"\r\n"), std::string::npos) << "unquoted: " << e;
		out = e;
	}
	if (!out.empty() && out[0] == '\'')
		out.erase(0, 1);
	return out;
}

// valid UTF-8 (RFC 3629: no overlong form, surrogate or code point past U+10FFFF)
bool valid_utf8(const std::string &s)
{
	const unsigned char *p = (const unsigned char *)s.data();
	size_t n = s.size(), i = 0;

	while (i < n) {
		unsigned c = p[i], len, cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, cp = c & 0x07;
		else
			return false;
		if (i + len > n)
			return false;
		for (unsigned k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

// no raw control (C0, DEL), C1 or bidi character: what a terminal may receive
bool terminal_safe(const std::string &s)
{
	if (!valid_utf8(s))
		return false;
	for (size_t i = 0; i < s.size(); i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c == 0x7f)
			return false;
		if (c == 0xc2 && i + 1 < s.size() && (unsigned char)s[i + 1] <= 0x9f)
			return false;	// U+0080-U+009F
		if (c == 0xe2 && i + 2 < s.size() && (unsigned char)s[i + 1] == 0x80 &&
		    (unsigned char)s[i + 2] >= 0xaa && (unsigned char)s[i + 2] <= 0xae)
			return false;	// U+202A-U+202E
		if (c == 0xe2 && i + 2 < s.size() && (unsigned char)s[i + 1] == 0x81 &&
		    (unsigned char)s[i + 2] >= 0xa6 && (unsigned char)s[i + 2] <= 0xa9)
			return false;	// U+2066-U+2069
	}
	return true;
}

const ms_esc_fmt kAll[] = { MS_ESC_TERM, MS_ESC_JSON, MS_ESC_CSV, MS_ESC_PROM };

const char *kHostile = "x\x1b[2J\x1b[31mOWNED\n     9999  fake row  /etc/shadow";

} // namespace

TEST(Escape, PrintableUtf8IsUnchangedInEveryFormat)
{
	for (const char *s : { "", "/usr/lib/x86_64-linux-gnu/libc.so.6", "memfd:café", "日本語",
			       "/srv/données/😀 file (deleted)", "/system.slice/ssh.service",
			       "SYSV6d730001", "a\xc2\xa0" "b" /* U+00A0, past C1 */,
			       "\xe2\x80\xaf" /* U+202F, past the overrides */,
			       "\xe2\x81\xaa" /* U+206A, past the isolates */ })
		for (ms_esc_fmt how : kAll)
			EXPECT_EQ(esc(s, how), s) << "format " << how;
}

TEST(Escape, TerminalShowsControlsAsHexBytes)
{
	EXPECT_EQ(esc(kHostile, MS_ESC_TERM),
		  "x\\x1b[2J\\x1b[31mOWNED\\x0a     9999  fake row  /etc/shadow");
	EXPECT_EQ(esc("a\tb\rc", MS_ESC_TERM), "a\\x09b\\x0dc");
	EXPECT_EQ(esc("\x01\x1f\x7f", MS_ESC_TERM), "\\x01\\x1f\\x7f");
	EXPECT_EQ(esc(std::string("a\0b", 3), MS_ESC_TERM), "a\\x00b");
}

TEST(Escape, TerminalShowsC1AndBidiAsCodePoints)
{
	EXPECT_EQ(esc("a\xc2\x9b" "2Jb", MS_ESC_TERM), "a\\u{009b}2Jb") << "U+009B: CSI";
	EXPECT_EQ(esc("\xc2\x80\xc2\x9f", MS_ESC_TERM), "\\u{0080}\\u{009f}");
	EXPECT_EQ(esc("\xe2\x80\xaa\xe2\x80\xae", MS_ESC_TERM), "\\u{202a}\\u{202e}");
	EXPECT_EQ(esc("exe.\xe2\x80\xaetxt", MS_ESC_TERM), "exe.\\u{202e}txt") << "RLO";
	EXPECT_EQ(esc("\xe2\x81\xa6\xe2\x81\xa9", MS_ESC_TERM), "\\u{2066}\\u{2069}");
}

TEST(Escape, InvalidUtf8IsOneHexByteEachInEveryFormat)
{
	EXPECT_EQ(esc("bad\xffname", MS_ESC_TERM), "bad\\xffname");
	EXPECT_EQ(esc("bad\xffname", MS_ESC_CSV), "bad\\xffname");
	// JSON and Prometheus escape the mapping's backslash: the value read is bad\xffname
	EXPECT_EQ(esc("bad\xffname", MS_ESC_JSON), "bad\\\\xffname");
	EXPECT_EQ(json_value("bad\xffname"), "bad\\xffname");
	EXPECT_EQ(esc("bad\xffname", MS_ESC_PROM), "bad\\\\xffname");
	EXPECT_EQ(prom_value(esc("bad\xffname", MS_ESC_PROM)), "bad\\xffname");
	struct {
		const char *in, *out;
	} cases[] = {
		{ "\x80", "\\x80" },			// a lone continuation byte
		{ "\xc0\xaf", "\\xc0\\xaf" },		// overlong '/'
		{ "\xe0\x80\xaf", "\\xe0\\x80\\xaf" },	// overlong, 3 bytes
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },	// a surrogate
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },	// past U+10FFFF
		{ "\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80" },
		{ "a\xe6\x97", "a\\xe6\\x97" },		// cut short at the end
		{ "\xe6\x97" "b", "\\xe6\\x97b" },		// cut short by an ASCII byte
		{ "\xc3\xa9\xff\xc3\xa9", "\xc3\xa9\\xff\xc3\xa9" },	// resynchronises
	};
	for (auto &c : cases)
		EXPECT_EQ(esc(c.in, MS_ESC_TERM), c.out) << c.out;
}

// A literal backslash is doubled only where what follows could read as an escape: names with a
// backslash before anything else, systemd's unit names above all, stay as they are.
TEST(Escape, ALiteralBackslashIsDoubledOnlyBeforeWhatReadsAsAnEscape)
{
	EXPECT_EQ(esc("a\\b", MS_ESC_TERM), "a\\b");
	EXPECT_EQ(esc("a\\b", MS_ESC_CSV), "a\\b");
	EXPECT_EQ(json_value("a\\b"), "a\\b");
	EXPECT_EQ(prom_value(esc("a\\b", MS_ESC_PROM)), "a\\b");
	EXPECT_EQ(esc("system-systemd\\x2dfsck.slice", MS_ESC_TERM), "system-systemd\\x2dfsck.slice");
	EXPECT_EQ(json_value("system-systemd\\x2dfsck.slice"), "system-systemd\\x2dfsck.slice");
	// a name that reads like an escape stays apart from the byte it would stand for
	EXPECT_NE(esc("\\xff", MS_ESC_TERM), esc("\xff", MS_ESC_TERM));
	EXPECT_EQ(esc("\\xff", MS_ESC_TERM), "\\\\xff");
	EXPECT_EQ(esc("\\x1b", MS_ESC_TERM), "\\\\x1b");
	EXPECT_EQ(esc("\\u{41}", MS_ESC_TERM), "\\\\u{41}");
	EXPECT_EQ(esc("a\\\\b", MS_ESC_TERM), "a\\\\\\b");	// two: the first doubled
	EXPECT_EQ(esc("a\\\xff", MS_ESC_TERM), "a\\\\\\xff");	// before an escaped byte
	EXPECT_EQ(esc("a\\\x1b", MS_ESC_TERM), "a\\\\\\x1b");	// before a control
	EXPECT_EQ(esc("a\\\x1b", MS_ESC_JSON), "a\\\\\\u001b");	// JSON's own escape
	EXPECT_EQ(esc("end\\", MS_ESC_TERM), "end\\");
}

TEST(Escape, JsonIsValidAndWritesControlsAsUnicodeEscapes)
{
	EXPECT_EQ(esc(kHostile, MS_ESC_JSON),
		  "x\\u001b[2J\\u001b[31mOWNED\\u000a     9999  fake row  /etc/shadow");
	EXPECT_EQ(json_value(kHostile), kHostile) << "controls decode to themselves";
	EXPECT_EQ(esc("say \"hi\"", MS_ESC_JSON), "say \\\"hi\\\"");
	EXPECT_EQ(esc("\x7f\xc2\x9b\xe2\x80\xae", MS_ESC_JSON), "\\u007f\\u009b\\u202e")
		<< "no raw DEL, C1 or bidi in the text";
	EXPECT_EQ(json_value("\x7f\xc2\x9b\xe2\x80\xae"), "\x7f\xc2\x9b\xe2\x80\xae");
	// through the JSON writer: the quotes, invalid bytes as \\xNN
	EXPECT_EQ(mstest::capture([](FILE *f) {
			  struct ms_jw w;

			  ms_jw_init(&w, f);
			  ms_jw_string(&w, "bad\xff");
		  }),
		  "\"bad\\\\xff\"");
}

TEST(Escape, CsvQuotesPerRfc4180AndDisarmsFormulas)
{
	EXPECT_EQ(esc("a,b", MS_ESC_CSV), "\"a,b\"");
	EXPECT_EQ(esc("say \"hi\"", MS_ESC_CSV), "\"say \"\"hi\"\"\"");
	EXPECT_EQ(esc("a\nb", MS_ESC_CSV), "a\\x0ab") << "a record stays one line";
	EXPECT_EQ(esc("=HYPERLINK(\"http://x\")", MS_ESC_CSV), "\"'=HYPERLINK(\"\"http://x\"\")\"");
	EXPECT_EQ(esc("=1+2", MS_ESC_CSV), "'=1+2");
	EXPECT_EQ(esc("+1", MS_ESC_CSV), "'+1");
	EXPECT_EQ(esc("-1", MS_ESC_CSV), "'-1");
	EXPECT_EQ(esc("@SUM(A1)", MS_ESC_CSV), "'@SUM(A1)");
	EXPECT_EQ(esc("'quoted", MS_ESC_CSV), "''quoted") << "a reader drops one leading '";
	EXPECT_EQ(esc("=a,b", MS_ESC_CSV), "\"'=a,b\"");
	EXPECT_EQ(esc("a=b-c", MS_ESC_CSV), "a=b-c") << "only the first character counts";
	EXPECT_EQ(esc("\t=1", MS_ESC_CSV), "\\x09=1") << "a leading tab is escaped";
	EXPECT_EQ(esc("\x1b[2J", MS_ESC_CSV), "\\x1b[2J");
	for (const char *s : { "=1+2", "'x", "''", "a,\"b\"", "-", "@" })
		EXPECT_EQ(unesc(csv_value(esc(s, MS_ESC_CSV))), s);
}

TEST(Escape, PrometheusLabelValueEscapes)
{
	EXPECT_EQ(esc("a\"b\nc\\d", MS_ESC_PROM), "a\\\"b\\nc\\\\d");
	EXPECT_EQ(prom_value(esc("a\"b\nc\\d", MS_ESC_PROM)), "a\"b\nc\\d");
	EXPECT_EQ(prom_value(esc(kHostile, MS_ESC_PROM)), kHostile);
	EXPECT_EQ(esc(std::string("a\0b", 3), MS_ESC_PROM), "a\\\\x00b") << "no NUL in a text line";
	EXPECT_EQ(unesc(prom_value(esc("a\"b\nc\\d\xff", MS_ESC_PROM))), "a\"b\nc\\d\xff");
}

TEST(Escape, CutToTheBufferLikeSnprintf)
{
	char buf[9];

	EXPECT_EQ(ms_esc(buf, sizeof(buf), "\x1b\x1b\x1b", 3, MS_ESC_TERM), 12u);
	EXPECT_STREQ(buf, "\\x1b\\x1b");
	EXPECT_EQ(ms_esc(nullptr, 0, "abc", 3, MS_ESC_TERM), 3u);
	char *s = ms_esc_str(nullptr, MS_ESC_TERM);
	ASSERT_NE(s, nullptr);
	EXPECT_STREQ(s, "");
	free(s);
	s = ms_esc_str("bad\xff", MS_ESC_JSON);
	ASSERT_NE(s, nullptr);
	EXPECT_STREQ(s, "bad\\\\xff");
	free(s);
}

TEST(Escape, UnescapeLeavesWhatIsNoEscape)
{
	EXPECT_EQ(unesc("a\\qb"), "a\\qb");
	EXPECT_EQ(unesc("\\x4"), "\\x4");
	EXPECT_EQ(unesc("\\xZZ"), "\\xZZ");
	EXPECT_EQ(unesc("\\u{}"), "\\u{}");
	EXPECT_EQ(unesc("\\u{110000}"), "\\u{110000}");
	EXPECT_EQ(unesc("\\u{1234567}"), "\\u{1234567}");
	EXPECT_EQ(unesc("end\\"), "end\\");
	EXPECT_EQ(unesc("\\u{1f600}\\x1b\\\\"), "😀\x1b\\");
	EXPECT_EQ(unesc("\\x41\\x2d"), "\\x41\\x2d") << "a byte the mapping never escapes";
}

// Every format decodes back to the name, for names of random bytes: the mapping is one-to-one
// (two names never print alike), and each output is valid UTF-8 (the terminal's without any
// control, C1 or bidi character).
TEST(Escape, EveryFormatRoundTripsRandomNames)
{
	std::mt19937 rng(18);
	const char pieces[][5] = { "\\", "x", "u", "{", "}", "\"", ",", "=", "'", "\n", "\x1b",
				   "\x7f", "\xc2\x9b", "\xe2\x80\xae", "\xe2\x81\xa6", "\xc3\xa9",
				   "\xff", "\xc0", "\xe6\x97", "\xf0\x9f\x98\x80", "a", "0", "f" };
	for (int t = 0; t < 20000; t++) {
		std::string s;
		size_t len = rng() % 12;

		for (size_t i = 0; i < len; i++) {
			if (rng() % 3)
				s += pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))];
			else
				s += (char)(rng() % 255 + 1);	// any byte but NUL
		}
		std::string term = esc(s, MS_ESC_TERM);
		ASSERT_TRUE(terminal_safe(term)) << term;
		ASSERT_EQ(unesc(term), s) << term;
		std::string j = esc(s, MS_ESC_JSON);
		ASSERT_TRUE(valid_utf8(j)) << j;
		ASSERT_EQ(unesc(json_value(s)), s) << j;
		std::string c = esc(s, MS_ESC_CSV);
		ASSERT_TRUE(valid_utf8(c)) << c;
		ASSERT_EQ(unesc(csv_value(c)), s) << c;
		std::string p = esc(s, MS_ESC_PROM);
		ASSERT_TRUE(valid_utf8(p)) << p;
		ASSERT_EQ(unesc(prom_value(p)), s) << p;
	}
}

// --by fs of mount points and a FUSE type that a user chose: one table row each, nothing raw
// reaches the terminal, the JSON is valid UTF-8 and reads back the name, the Prometheus
// series stay one line each.
TEST(Escape, ByFsTableJsonAndPrometheusOfHostileMounts)
{
	char path[] = "/tmp/memstat-escape-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	FILE *f = fdopen(fd, "w");
	// mountinfo escapes the newline and spaces (\012, \040); ESC and the 0xff byte come raw
	fputs("22 1 0:90 / /mnt/x\x1b[2J\x1b[31mOWNED\\012\\040\\040\\040\\040\\0409999\\040\\040"
	      "fake\\040row\\040\\040/etc/shadow rw - "
	      "fuse.\x1b[31mred user rw\n"
	      "23 1 0:91 / /mnt/bad\xffname rw - tmpfs tmpfs rw\n", f);
	fclose(f);
	ms_groups *g = ms_groups_new(MS_BY_FS, 0);
	ASSERT_NE(g, nullptr);
	g->mountinfo_path = path;
	uint64_t pfn = 0;
	for (uint32_t dev : { 90u, 91u, 91u }) {
		ms_page_rec r = {};
		r.valid = 1;
		r.sub = MS_FILE;
		r.dev = dev;
		r.ino = 12;
		ASSERT_EQ(ms_groups_page(g, pfn++, &r), 0);
	}
	ms_result res = {};
	res.backend = "bpf";
	res.total = 3;
	ASSERT_EQ(ms_groups_finish(g, &res), MS_EXIT_OK);
	unlink(path);

	std::string table = mstest::capture([&](FILE *o) { ms_groups_print(o, g); });
	EXPECT_EQ(table.find('\x1b'), std::string::npos) << table;
	EXPECT_EQ(table.find("\n     9999"), std::string::npos) << "a forged row:\n" << table;
	EXPECT_NE(table.find("/mnt/x\\x1b[2J\\x1b[31mOWNED\\x0a     9999  fake row  /etc/shadow\n"),
		  std::string::npos) << table;
	EXPECT_NE(table.find("fuse.\\x1b[31mred"), std::string::npos) << table;
	EXPECT_NE(table.find("/mnt/bad\\xffname\n"), std::string::npos) << table;
	EXPECT_TRUE(valid_utf8(table));

	std::string js = mstest::capture([&](FILE *o) { ms_groups_json(o, g, &res); });
	ASSERT_TRUE(valid_utf8(js));
	json j = json::parse(js);
	std::map<std::string, json> by_dev;
	for (auto &x : j["groups"])
		by_dev[x["dev"].get<std::string>()] = x;
	EXPECT_EQ(by_dev["0:90"]["name"], "/mnt/x\x1b[2J\x1b[31mOWNED\n     9999  fake row  /etc/shadow");
	EXPECT_EQ(by_dev["0:90"]["fstype"], "fuse.\x1b[31mred");
	EXPECT_EQ(by_dev["0:91"]["name"], "/mnt/bad\\xffname");
	EXPECT_EQ(by_dev["0:91"]["mount"], "/mnt/bad\\xffname");

	std::string prom = mstest::capture([&](FILE *o) { ms_groups_prom(o, &g, 1); });
	EXPECT_TRUE(valid_utf8(prom));
	size_t series = 0;
	for (size_t p = 0, nl; (nl = prom.find('\n', p)) != std::string::npos; p = nl + 1) {
		std::string line = prom.substr(p, nl - p);
		if (line[0] == '#')
			continue;
		series++;
		EXPECT_EQ(line.rfind("memstat_group_pages{by=\"fs\",group=\"", 0), 0u) << line;
	}
	EXPECT_EQ(series, (g->nshown + 1) * 8) << "8 series for each group and (other), one line "
						  "each:\n" << prom;
	EXPECT_NE(prom.find("group=\"/mnt/bad\\\\xffname\""), std::string::npos) << prom;
	EXPECT_NE(prom.find("OWNED\\n     9999"), std::string::npos) << prom;
	ms_groups_free(g);
}

// allpages --cgroup PATH takes a path as --by cgroup prints it (escaped) as well as the
// directory's own name
TEST(Escape, CgroupResolveTakesThePrintedPath)
{
	char dir[] = "/tmp/memstat-escape-cg-XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr);
	std::string sub = std::string(dir) + "/sys-fsck\\x2dx.slice";
	ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
	ms_cgroups cg = {};
	ASSERT_EQ(ms_cgroups_scan(&cg, dir, "/"), 0);
	struct stat st;
	ASSERT_EQ(stat(sub.c_str(), &st), 0);
	__u64 id = 0;
	EXPECT_EQ(ms_cgroup_resolve(&cg, "/sys-fsck\\x2dx.slice", &id), 0) << "the directory's name";
	EXPECT_EQ(id, (__u64)st.st_ino);
	id = 0;
	EXPECT_EQ(ms_cgroup_resolve(&cg, esc("/sys-fsck\\x2dx.slice", MS_ESC_TERM).c_str(), &id), 0)
		<< "as printed";
	EXPECT_EQ(id, (__u64)st.st_ino);
	EXPECT_EQ(ms_cgroup_resolve(&cg, "/sys-fsck\\x00.slice", &id), -ENOENT);
	ms_cgroups_free(&cg);
	rmdir(sub.c_str());
	rmdir(dir);
}

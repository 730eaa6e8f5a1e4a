// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The JSON writer (src/out/json.c) every JSON document goes through: commas and nesting, names
// and values escaped, numbers in the member's format, non-finite numbers as null, the error
// document; and what it writes parses as the JSON it meant.
#include <math.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "capture.h"

extern "C" {
#include "json.h"
}

namespace {

using json = nlohmann::json;

TEST(JsonWriter, CommasAndNestingOfObjectsAndArrays)
{
	std::string out = mstest::capture([](FILE *f) {
		struct ms_jw w;

		ms_jw_init(&w, f);
		ms_jw_start_object(&w);
		ms_jw_u64_field(&w, "a", 1);
		ms_jw_object_field(&w, "b");
		ms_jw_end_object(&w);
		ms_jw_array_field(&w, "c");
		ms_jw_u64(&w, 2);
		ms_jw_start_object(&w);
		ms_jw_bool_field(&w, "d", true);
		ms_jw_null_field(&w, "e");
		ms_jw_end_object(&w);
		ms_jw_start_array(&w);
		ms_jw_end_array(&w);
		ms_jw_end_array(&w);
		ms_jw_i64_field(&w, "f", -3);
		ms_jw_end_object(&w);
	});
	EXPECT_EQ(out, "{\"a\":1,\"b\":{},\"c\":[2,{\"d\":true,\"e\":null},[]],\"f\":-3}");
	EXPECT_NO_THROW((void)json::parse(out));
}

TEST(JsonWriter, NumbersKeepTheirFormatAndNonFiniteIsNull)
{
	std::string out = mstest::capture([](FILE *f) {
		struct ms_jw w;

		ms_jw_init(&w, f);
		ms_jw_start_object(&w);
		ms_jw_double_field(&w, "ms", "%.3f", 12.5);
		ms_jw_double_field(&w, "pct", "%.4f", -0.00004);
		ms_jw_double_field(&w, "nan", "%.3f", NAN);
		ms_jw_double_field(&w, "inf", "%.3f", -INFINITY);
		ms_jw_u64_field(&w, "big", 18446744073709551615ULL);
		ms_jw_end_object(&w);
	});
	EXPECT_EQ(out, "{\"ms\":12.500,\"pct\":-0.0000,\"nan\":null,\"inf\":null,"
		       "\"big\":18446744073709551615}");
	EXPECT_NO_THROW((void)json::parse(out));
}

TEST(JsonWriter, NamesAndStringsAreEscapedAndNullIsNull)
{
	std::string out = mstest::capture([](FILE *f) {
		struct ms_jw w;

		ms_jw_init(&w, f);
		ms_jw_start_object(&w);
		ms_jw_string_field(&w, "say \"hi\"\n", "x\x1b[2J\xff");
		ms_jw_string_field(&w, "none", nullptr);
		ms_jw_name(&w, "f");
		ms_jw_stringf(&w, "%u:%u", 8u, 1u);
		ms_jw_end_object(&w);
	});
	json j = json::parse(out);	// valid UTF-8, valid syntax, whatever the bytes
	EXPECT_EQ(j["say \"hi\"\n"], "x\x1b[2J\\xff");
	EXPECT_TRUE(j["none"].is_null());
	EXPECT_EQ(j["f"], "8:1");
}

TEST(JsonWriter, TheErrorDocumentIsOneLine)
{
	std::string out = mstest::capture([](FILE *f) { ms_jw_error_document(f, "no \"BTF\""); });
	EXPECT_EQ(out, "{\"error\":\"no \\\"BTF\\\"\"}\n");
}

}  // namespace

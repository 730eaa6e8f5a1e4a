// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The SVG writer (src/out/svg.c): escaping, nice ticks, axes on each side, the legend.
#include <stdio.h>
#include <stdlib.h>

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "capture.h"

extern "C" {
#include "svg.h"
}

using namespace mstest;

namespace {

TEST(Svg, EscapesMarkupAndControlCharacters)
{
	std::string s = capture([](FILE *f) { ms_svg_escape(f, "a<b>&\"c'\x01\x7f"); });

	EXPECT_EQ(s, "a&lt;b&gt;&amp;&quot;c&apos;??");
}

TEST(Svg, DocumentHasTitleAndClosesOnce)
{
	std::string s = capture([](FILE *f) {
		struct ms_svg svg;

		ms_svg_begin(&svg, f, 640, 480, "host <x> & y");
		ms_svg_rect(&svg, 1, 2, 3, 4, "#ff0000", nullptr, 0);
		EXPECT_EQ(ms_svg_end(&svg), 0);
	});

	EXPECT_EQ(s.rfind("<?xml", 0), 0u);
	EXPECT_NE(s.find("<title>host &lt;x&gt; &amp; y</title>"), std::string::npos);
	EXPECT_NE(s.find("width=\"640\" height=\"480\""), std::string::npos);
	EXPECT_NE(s.find("<rect x=\"1.00\" y=\"2.00\" width=\"3.00\" height=\"4.00\" fill=\"#ff0000\"/>"),
		  std::string::npos);
	EXPECT_EQ(count(s, "</svg>"), 1u);
}

TEST(Svg, NiceStepIsOneTwoOrFiveTimesAPowerOfTen)
{
	double first;

	EXPECT_DOUBLE_EQ(ms_svg_nice_step(0, 24000, 6, &first), 5000);
	EXPECT_DOUBLE_EQ(first, 0);
	EXPECT_DOUBLE_EQ(ms_svg_nice_step(3, 97, 11, &first), 10);
	EXPECT_DOUBLE_EQ(first, 10);
	EXPECT_DOUBLE_EQ(ms_svg_nice_step(0, 1, 6, &first), 0.2);
	// 4 TB in MB: 4194304, a few ticks
	double step = ms_svg_nice_step(0, 4194304, 6, &first);
	EXPECT_DOUBLE_EQ(step, 1000000);
	// never more ticks than asked for, for any range
	for (double hi = 1; hi < 1e7; hi *= 1.37) {
		step = ms_svg_nice_step(0, hi, 6, &first);
		EXPECT_LE(std::floor(hi / step + 1e-9) + 1, 6) << hi;
		EXPECT_GE(std::floor(hi / step + 1e-9) + 1, 2) << hi;
	}
	// a flat range still gets a step
	EXPECT_GT(ms_svg_nice_step(5, 5, 6, &first), 0);
}

TEST(Svg, TimeStepIsAClockStep)
{
	double first;

	EXPECT_DOUBLE_EQ(ms_svg_time_step(1000, 1000 + 86400, 9, &first), 3 * 3600);
	EXPECT_DOUBLE_EQ(ms_svg_time_step(0, 600, 7, &first), 120);
	EXPECT_DOUBLE_EQ(ms_svg_time_step(7, 67, 7, &first), 10);
	EXPECT_DOUBLE_EQ(first, 10);
	EXPECT_GE(ms_svg_time_step(0, 60 * 86400, 8, &first), 7 * 86400);
}

TEST(Svg, AxesOnEachSide)
{
	for (int side = MS_SVG_BOTTOM; side <= MS_SVG_RIGHT; side++) {
		struct ms_svg_axis a = {};

		a.side = (enum ms_svg_side)side;
		a.lo = 0;
		a.hi = 100;
		a.x = 50;
		a.y = 400;
		a.len = 300;
		a.max_ticks = 6;
		a.label = "MB <used>";
		std::string s = capture([&](FILE *f) {
			struct ms_svg svg;

			ms_svg_begin(&svg, f, 500, 500, "t");
			ms_svg_axis(&svg, &a);
			ms_svg_end(&svg);
		});
		// ticks 0, 20, ..., 100: six labels, and the label escaped
		for (int v = 0; v <= 100; v += 20)
			EXPECT_NE(s.find(">" + std::to_string(v) + "</text>"), std::string::npos)
				<< side << " " << v;
		EXPECT_NE(s.find("MB &lt;used&gt;"), std::string::npos);
		if (side == MS_SVG_LEFT) {
			EXPECT_NE(s.find("text-anchor=\"end\""), std::string::npos);
		}
		if (side == MS_SVG_RIGHT) {
			EXPECT_NE(s.find("rotate(90)"), std::string::npos);
		}
	}
	struct ms_svg_axis a = {};
	a.side = MS_SVG_LEFT;
	a.lo = 0;
	a.hi = 10;
	a.y = 400;
	a.len = 200;
	EXPECT_DOUBLE_EQ(ms_svg_axis_pos(&a, 0), 400);
	EXPECT_DOUBLE_EQ(ms_svg_axis_pos(&a, 5), 300);
	a.side = MS_SVG_BOTTOM;
	a.x = 10;
	EXPECT_DOUBLE_EQ(ms_svg_axis_pos(&a, 10), 210);
}

// A log axis: a tick at each power of ten from lo to hi, values placed by their logarithm, a
// value at or under lo at the axis's foot; a time axis's ticks stop at its end.
TEST(Svg, LogAxisTicksArePowersOfTen)
{
	struct ms_svg_axis a = {};

	a.side = MS_SVG_LEFT;
	a.log = true;
	a.lo = 0.1;
	a.hi = 1000;
	a.y = 400;
	a.len = 400;
	std::string s = capture([&](FILE *f) {
		struct ms_svg svg;

		ms_svg_begin(&svg, f, 500, 500, "t");
		ms_svg_axis(&svg, &a);
		ms_svg_end(&svg);
	});
	for (const char *t : { ">0.1<", ">1<", ">10<", ">100<", ">1000<" })
		EXPECT_NE(s.find(t), std::string::npos) << t;
	EXPECT_EQ(s.find(">10000<"), std::string::npos);
	EXPECT_EQ(s.find(">50<"), std::string::npos);
	EXPECT_DOUBLE_EQ(ms_svg_axis_pos(&a, 0.1), 400);
	EXPECT_DOUBLE_EQ(ms_svg_axis_pos(&a, 1000), 0);
	EXPECT_NEAR(ms_svg_axis_pos(&a, 10), 200, 1e-9);
	EXPECT_DOUBLE_EQ(ms_svg_axis_pos(&a, 0), 400);
	EXPECT_DOUBLE_EQ(ms_svg_axis_pos(&a, 0.01), 400);

	struct ms_svg_axis t = {};	// seconds of a clock: no tick past hi
	t.side = MS_SVG_BOTTOM;
	t.lo = 1.8e9;
	t.hi = 1.8e9 + 11.5;
	t.len = 100;
	t.step = 2;
	std::string ts = capture([&](FILE *f) {
		struct ms_svg svg;

		ms_svg_begin(&svg, f, 500, 500, "t");
		ms_svg_axis(&svg, &t);
		ms_svg_end(&svg);
	});
	EXPECT_NE(ts.find(">1800000010<"), std::string::npos) << ts;
	EXPECT_EQ(ts.find(">1800000012<"), std::string::npos) << ts;
}

TEST(Svg, AxisFormatCallback)
{
	struct ms_svg_axis a = {};

	a.side = MS_SVG_BOTTOM;
	a.lo = 0;
	a.hi = 3;
	a.len = 100;
	a.step = 1;
	a.format = [](double v, double, char *buf, size_t len, void *) {
		snprintf(buf, len, "t%g", v);
	};
	std::string s = capture([&](FILE *f) {
		struct ms_svg svg;

		ms_svg_begin(&svg, f, 500, 500, "t");
		ms_svg_axis(&svg, &a);
		ms_svg_end(&svg);
	});
	EXPECT_NE(s.find(">t0<"), std::string::npos);
	EXPECT_NE(s.find(">t3<"), std::string::npos);
	EXPECT_EQ(s.find(">t4<"), std::string::npos);
}

TEST(Svg, LegendAndClassColours)
{
	struct ms_svg_legend_item it[MS_NR_CLASSES];

	for (int c = 0; c < MS_NR_CLASSES; c++) {
		ASSERT_NE(ms_class_colours[c], nullptr);
		for (int d = 0; d < c; d++)
			EXPECT_STRNE(ms_class_colours[c], ms_class_colours[d]);
		it[c] = { ms_class_colours[c], "x" };
	}
	std::string s = capture([&](FILE *f) {
		struct ms_svg svg;

		ms_svg_begin(&svg, f, 500, 500, "t");
		EXPECT_DOUBLE_EQ(ms_svg_legend(&svg, 0, 0, it, MS_NR_CLASSES), 18.0 * MS_NR_CLASSES);
		ms_svg_end(&svg);
	});
	for (int c = 0; c < MS_NR_CLASSES; c++)
		EXPECT_NE(s.find(std::string("fill=\"") + ms_class_colours[c] + "\""),
			  std::string::npos);
}

} // namespace

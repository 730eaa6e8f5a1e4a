// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// For the unit tests of code that writes to a FILE (svg_test.cc, picture_test.cc,
// groups_test.cc): what it wrote, and how often a string occurs in that.
#ifndef MEMSTAT_TEST_CAPTURE_H
#define MEMSTAT_TEST_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>

#include <string>

namespace mstest {

// what fn(FILE *) writes to a memory stream
template <typename F> std::string capture(F fn)
{
	char *buf = nullptr;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f);
	fclose(f);
	std::string s(buf, len);
	free(buf);
	return s;
}

// how many times what occurs in s (overlapping occurrences too)
inline size_t count(const std::string &s, const std::string &what)
{
	size_t n = 0;

	for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
		n++;
	return n;
}

} // namespace mstest

#endif /* MEMSTAT_TEST_CAPTURE_H */

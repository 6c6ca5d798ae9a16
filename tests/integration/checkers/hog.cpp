// SPDX-License-Identifier: Apache-2.0
// A checker that takes memory until its own limit stops it.
#include <cstdlib>
#include <cstring>

int main()
{
	for (;;) {
		char *p = static_cast<char *>(std::malloc(1 << 20));
		if (p)
			std::memset(p, 1, 1 << 20);
	}
}

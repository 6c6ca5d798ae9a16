// SPDX-License-Identifier: Apache-2.0
// A checker that never ends: its own time limit stops it.
int main()
{
	volatile unsigned long n = 0;
	for (;;)
		n++;
}

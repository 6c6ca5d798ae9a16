# SPDX-License-Identifier: Apache-2.0
# A checker that never ends: its own time limit stops it.
n = 0
while True:
    n += 1

# SPDX-License-Identifier: Apache-2.0
# A checker that takes memory until its own limit stops it.
hold = []
while True:
    hold.append(bytearray(1 << 20))

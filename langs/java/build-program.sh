#!/bin/sh
# POST /evaluate, build step: compiles check/Solution.java, a whole program
# with a main method, into classes/ and records its main class in
# classes/main-class for `make run`.  javac wants a public class in a file of
# its own name (as CompiCode does it), so the source is copied under the name
# of its public class first; without one, under the name of its first class.
# Usage: build-program.sh <javac and its options...>
set -eu
src=check/Solution.java
cls=$(grep -oE '(^|[^A-Za-z0-9_$])public[[:space:]]+((final|abstract|strictfp)[[:space:]]+)*class[[:space:]]+[A-Za-z_$][A-Za-z0-9_$]*' "$src" | head -n 1 | awk '{print $NF}')
if [ -z "$cls" ]; then
	cls=$(grep -oE '(^|[^A-Za-z0-9_$])class[[:space:]]+[A-Za-z_$][A-Za-z0-9_$]*' "$src" | head -n 1 | awk '{print $NF}')
fi
cls=${cls:-Main}
pkg=$(sed -n 's/^[[:space:]]*package[[:space:]]\{1,\}\([A-Za-z0-9_.$]*\)[[:space:]]*;.*/\1/p' "$src" | head -n 1)
mkdir -p program classes
cp "$src" "program/$cls.java"
"$@" -d classes "program/$cls.java"
echo "${pkg:+$pkg.}$cls" > classes/main-class

#!/usr/bin/env bash
# Makes a large real Cachegrind profile: cachegrind on g++ compiling a translation unit that
# pulls in <regex>, <map> and <iostream> (the cc1plus child writes the big file).
set -euo pipefail
dir=${1:?usage: make-large-cachegrind.sh OUTDIR}
mkdir -p "$dir"; cd "$dir"
printf '#include <regex>\n#include <map>\n#include <iostream>\nint main(){std::map<int,std::regex> m; m[1]=std::regex("a+b"); std::cout<<std::regex_match("aab",m[1]);}\n' > t.cpp
valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --trace-children=yes \
  --cachegrind-out-file="$PWD/cachegrind.out.%p" g++ -O1 -c t.cpp -o t.o >/dev/null 2>&1
ls -S cachegrind.out.* | head -1

// The classes of Codebattle's insertion-ordered json that pch/fifo.hpp
// declares instantiated elsewhere: instantiated here, once, by `make prepare`,
// into cb/libgaoljson.a (compiled with the checkers' own flags).
#define GAOL_FIFO_INSTANTIATE
#include "../pch/fifo.hpp"

GAOL_FIFO_CLASSES(template)

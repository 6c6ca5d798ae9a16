// The header `make test` forces into a checker of before 2026-05 that
// declares Codebattle's insertion-ordered json, at the top level, exactly as
// Codebattle's generator writes it:
//
//   template <class K, class V, class dummy_compare, class A>
//   using fifo_map = nlohmann::fifo_map<K, V, nlohmann::fifo_map_compare<K>, A>;
//   using json = nlohmann::basic_json<fifo_map>;
//
// Such a checker instantiated and compiled the whole of basic_json<fifo_map>
// (its serializer, iterators, the ordered map under it) at every build.  Here
// the same alias is declared first (g++ accepts an identical redeclaration of
// an alias template), those classes are declared explicitly instantiated
// elsewhere, and `make prepare` instantiates them once into cb/libgaoljson.a,
// which `make test` links.  Without the .gch and the archive `make test`
// forces pch/run.hpp instead: the build is slower, never different.
#include "run.hpp"

template <class K, class V, class dummy_compare, class A>
using fifo_map = nlohmann::fifo_map<K, V, nlohmann::fifo_map_compare<K>, A>;

#define GAOL_FIFO_JSON nlohmann::basic_json<fifo_map>
#define GAOL_FIFO_CLASSES(how)                                                  \
	how class GAOL_FIFO_JSON;                                               \
	how class nlohmann::detail::serializer<GAOL_FIFO_JSON>;                 \
	how class nlohmann::detail::iter_impl<const GAOL_FIFO_JSON>;            \
	how class std::vector<GAOL_FIFO_JSON>;                                  \
	how struct nlohmann::ordered_map<std::string, GAOL_FIFO_JSON,           \
		nlohmann::fifo_map_compare<std::string>,                        \
		std::allocator<std::pair<const std::string, GAOL_FIFO_JSON>>>;

#ifndef GAOL_FIFO_INSTANTIATE
GAOL_FIFO_CLASSES(extern template)
#endif

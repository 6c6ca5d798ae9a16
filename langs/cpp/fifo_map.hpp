// fifo_map.hpp: nlohmann::fifo_map for the checkers of POST /run.
//
// Codebattle's generated C++ checkers include "../fifo_map.hpp" and build an
// insertion-ordered json with
//
//   template<class K, class V, class dummy_compare, class A>
//   using fifo_map = nlohmann::fifo_map<K, V, nlohmann::fifo_map_compare<K>, A>;
//   using json = nlohmann::basic_json<fifo_map>;
//
// so that records print their keys in the order they were set.  Debian has no
// package for fifo_map; nlohmann::ordered_map (part of nlohmann/json since
// 3.9) keeps keys in insertion order too, so the two names below map onto it.
// Only these two names are provided: the checkers use nothing else.
#ifndef GAOL_FIFO_MAP_HPP
#define GAOL_FIFO_MAP_HPP

#include <memory>
#include <utility>
#include <nlohmann/json.hpp>

namespace nlohmann {

// A comparison type for fifo_map's third parameter.  ordered_map ignores its
// comparator (order is insertion order), so this is never called for that.
template <class Key>
struct fifo_map_compare {
	bool operator()(const Key &a, const Key &b) const { return a < b; }
};

template <class Key, class T, class Compare = fifo_map_compare<Key>,
	  class Allocator = std::allocator<std::pair<const Key, T>>>
using fifo_map = ordered_map<Key, T, Compare, Allocator>;

} // namespace nlohmann

#endif

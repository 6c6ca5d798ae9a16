// a + b, checked the way Codebattle's generated C++ checkers do it: they
// include "../json.hpp" and "../fifo_map.hpp" from the directory above
// check/, build an insertion-ordered json on nlohmann::fifo_map, capture
// std::cout through its streambuf and print one JSON record per line.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "../json.hpp"
#include "../fifo_map.hpp"

#include "solution.cpp"

template <class K, class V, class dummy_compare, class A>
using fifo_map = nlohmann::fifo_map<K, V, nlohmann::fifo_map_compare<K>, A>;
using json = nlohmann::basic_json<fifo_map>;

static json record(const std::string &type, json value, const std::string &output, double seconds) {
    char time[32];
    std::snprintf(time, sizeof time, "%.7f", seconds);
    json j;
    j["type"] = type;
    j["value"] = value;
    j["output"] = output;
    j["time"] = std::string(time);
    return j;
}

int main() {
    std::stringstream captured;
    std::streambuf *saved = std::cout.rdbuf(captured.rdbuf());
    std::vector<json> records;
    const long long args[][2] = {{1, 2}, {-5, 5}, {4000000000LL, 4000000000LL}};
    try {
        for (const auto &a : args) {
            auto start = std::chrono::steady_clock::now();
            auto result = solution(a[0], a[1]);
            std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
            records.push_back(record("result", result, captured.str(), took.count()));
            captured.str("");
        }
    } catch (const std::exception &e) {
        json j;
        j["type"] = "error";
        j["value"] = e.what();
        records.push_back(j);
    }
    std::cout.rdbuf(saved);
    for (const auto &r : records)
        std::cout << r << "\n";
}

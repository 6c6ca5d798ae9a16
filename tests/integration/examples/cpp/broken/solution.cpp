#include <bits/stdc++.h>

using namespace std;

int solution(int a, int b) {
    return a + b   // missing semicolon
}

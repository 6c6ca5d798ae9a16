#include <bits/stdc++.h>

using namespace std;

int solution(int a, int b) {
    cout << "adding " << a << " and " << b << "\n";
    if (a < 0)
        raise(SIGSEGV);
    return a + b;
}

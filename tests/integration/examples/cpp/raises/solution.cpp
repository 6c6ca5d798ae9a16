#include <bits/stdc++.h>

using namespace std;

int solution(int a, int b) {
    cout << "dividing " << a << " by " << b << "\n";
    if (b == 0)
        throw invalid_argument("division by zero");
    return a / b;
}

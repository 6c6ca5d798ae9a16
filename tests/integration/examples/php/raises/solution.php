<?php

function solution(int $a, int $b)
{
    echo "dividing $a by $b\n";
    if ($b === 0) {
        throw new InvalidArgumentException("division by zero");
    }
    return intdiv($a, $b);
}

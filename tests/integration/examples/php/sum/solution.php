<?php

function solution(int $a, int $b)
{
    echo "adding $a and $b\n";
    return $a + $b;
}

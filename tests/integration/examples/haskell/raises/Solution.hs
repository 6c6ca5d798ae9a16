module Solution where

solution :: Int -> Int -> Int
solution _ 0 = error "division by zero"
solution a b = a `div` b

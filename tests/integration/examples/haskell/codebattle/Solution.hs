module Solution where

import qualified Data.Map as Map

solution :: Integer -> Integer -> Integer
solution a b = Map.findWithDefault 0 "sum" (Map.fromList [("sum", a + b)])

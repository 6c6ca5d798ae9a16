-- a + b, checked the way Codebattle's generated Haskell checkers do it:
-- aeson's encode of an object per call, `catch` for ErrorCall, one JSON line
-- per record.
{-# LANGUAGE ScopedTypeVariables #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE NegativeLiterals #-}
import qualified Data.Aeson as A
import qualified Data.ByteString.Lazy.Char8 as BS
import Control.Exception
import Solution

output = BS.putStrLn . A.encode . A.object
handleResult res = output ["type" A..= ("result" :: String), "value" A..= res, "time" A..= ("0" :: String)]
handleRuntimeError e = output ["type" A..= ("error" :: String), "value" A..= show e]

main :: IO ()
main = do
    handleResult (solution 1 2) `catch` \(e :: ErrorCall) -> handleRuntimeError e
    handleResult (solution -5 5) `catch` \(e :: ErrorCall) -> handleRuntimeError e
    handleResult (solution 4000000000 4000000000) `catch` \(e :: ErrorCall) -> handleRuntimeError e

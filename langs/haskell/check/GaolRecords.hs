{-
GaolRecords: write a Codebattle Haskell checker in a few lines.

A checker for POST /run (lang_slug "haskell") is check/Checker.hs, the main
module (no module header, `module Main`, or `module Checker` with main),
compiled with check/Solution.hs (`module Solution`) and, when it imports it,
this module.  It prints one Codebattle record per call, one JSON object per
line:

  {"type":"result","time":"0.0000012","value":3,"output":""}
  {"type":"error","time":"0.0000040","value":"divide by zero","output":""}

With this module a checker is:

  import GaolRecords
  import Solution

  main :: IO ()
  main = withRecords $ \records -> do
    check records (solution 1 2)
    check records (solution 10 20)

`check records value` evaluates value completely (by encoding it) and prints
its record at once (so the records of the calls before a crash are not
lost):
- "result" with the value as aeson encodes it (ToJSON: numbers, Integer of
  any size, Bool, String and Text, lists, Maybe, tuples, Map and HashMap;
  NaN and infinities become null, as aeson writes them), or "error" with
  what evaluating it threw: the message of `error "..."` (without its call
  stack), "divide by zero", displayException of anything else;
- "time": the evaluation's wall time in seconds, a string with 7 decimals;
- "output": what was written to stdout since the previous record (putStrLn
  in checkIO actions, child processes): fd 1 points at a temporary file
  while the records are open, and they go to a private duplicate of the real
  stdout.  Debug.Trace writes to stderr, which is left alone.
`checkIO records action` does the same for an IO action.  `result` and
`errorRecord` print a record without evaluating anything.  Records are plain
ASCII: other characters are \u-escaped.
-}
{-# LANGUAGE ScopedTypeVariables #-}
module GaolRecords
  ( Records
  , openRecords
  , check
  , checkIO
  , result
  , errorRecord
  , finish
  , withRecords
  ) where

import Control.Exception
import qualified Data.Aeson as A
import qualified Data.ByteString.Char8 as B8
import qualified Data.ByteString.Lazy as BL
import qualified Data.ByteString.Lazy.Char8 as BLC
import Data.Char (ord)
import Data.IORef
import Data.Word (Word64)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import GHC.Clock (getMonotonicTimeNSec)
import GHC.IO.Handle (hDuplicate, hDuplicateTo)
import System.Directory (removeFile)
import System.IO
import Text.Printf (printf)

data Records = Records
  { recOut :: Handle          -- the real stdout
  , recPath :: FilePath       -- the temporary file stdout points at
  , recOpen :: IORef Bool
  }

-- | Points stdout at a temporary file until 'finish'.
openRecords :: IO Records
openRecords = do
  hFlush stdout
  out <- hDuplicate stdout
  hSetBinaryMode out True
  (path, h) <- openBinaryTempFile "/tmp" "gaol-out-"
  hDuplicateTo h stdout
  hClose h
  hSetBuffering stdout LineBuffering
  open <- newIORef True
  return (Records out path open)

-- | 'openRecords', the body, then 'finish' (also when the body throws).
withRecords :: (Records -> IO a) -> IO ()
withRecords body = do
  r <- openRecords
  _ <- body r `finally` finish r
  return ()

-- | Evaluates value completely; prints a "result" or "error" record.
check :: A.ToJSON a => Records -> a -> IO Bool
check r value = checkIO r (return value)

-- | Runs action and evaluates its value completely; prints a record.
checkIO :: A.ToJSON a => Records -> IO a -> IO Bool
checkIO r action = do
  start <- getMonotonicTimeNSec
  outcome <- try (action >>= \v -> evaluate (forceEncode v))
  case outcome of
    Right json -> emit r "result" json start >> return True
    Left (e :: SomeException) ->
      case fromException e of
        Just (ae :: SomeAsyncException) -> throwIO ae
        Nothing -> emit r "error" (A.encode (message e)) start >> return False
  where
    forceEncode v = let bs = A.encode v in BL.length bs `seq` bs

-- | Prints a "result" record of value.
result :: A.ToJSON a => Records -> a -> IO ()
result r v = checkIO r (return v) >> return ()

-- | Prints an "error" record.
errorRecord :: Records -> String -> IO ()
errorRecord r msg = getMonotonicTimeNSec >>= emit r "error" (A.encode msg)

-- | Puts stdout back; what was printed after the last record goes out as is.
finish :: Records -> IO ()
finish r = do
  open <- readIORef (recOpen r)
  if not open
    then return ()
    else do
      writeIORef (recOpen r) False
      rest <- takeOutput r
      hDuplicateTo (recOut r) stdout
      hClose (recOut r)
      removeFile (recPath r) `catch` \(_ :: IOException) -> return ()
      B8.hPut stdout rest
      hFlush stdout

message :: SomeException -> String
message e
  | Just (ErrorCallWithLocation msg _) <- fromException e = msg
  | otherwise = displayException e

takeOutput :: Records -> IO B8.ByteString
takeOutput r = do
  hFlush stdout
  text <- B8.readFile (recPath r)
  hSetFileSize stdout 0
  hSeek stdout AbsoluteSeek 0
  return text

emit :: Records -> String -> BL.ByteString -> Word64 -> IO ()
emit r kind valueJson start = do
  end <- getMonotonicTimeNSec
  output <- takeOutput r
  let seconds = fromIntegral (end - start) / 1e9 :: Double
      outText = TE.decodeUtf8With TE.lenientDecode output
      line = BL.concat
        [ BLC.pack "{\"type\":", A.encode kind
        , BLC.pack (printf ",\"time\":\"%.7f\",\"value\":" seconds)
        , valueJson
        , BLC.pack ",\"output\":", A.encode outText
        , BLC.pack "}\n" ]
  BL.hPut (recOut r) (ascii line)
  hFlush (recOut r)

-- Every non-ASCII character (they can only be inside JSON strings) as \uXXXX.
ascii :: BL.ByteString -> BL.ByteString
ascii bs
  | BL.all (< 0x7f) bs = bs
  | otherwise = BL.fromStrict (TE.encodeUtf8 (T.concatMap escape text))
  where
    text = TE.decodeUtf8With TE.lenientDecode (BL.toStrict bs)
    escape c
      | ord c < 0x7f = T.singleton c
      | ord c > 0xffff =
          let v = ord c - 0x10000
           in T.pack (u (0xd800 + v `div` 0x400) ++ u (0xdc00 + v `mod` 0x400))
      | otherwise = T.pack (u (ord c))
    u :: Int -> String
    u = printf "\\u%04x"

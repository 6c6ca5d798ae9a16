-- a + b, with gaol's record helper (check/GaolRecords.hs): one record per
-- call, one per line.
import GaolRecords
import Solution

main :: IO ()
main = withRecords $ \records -> do
  _ <- check records (solution 1 2)
  _ <- check records (solution (-5) 5)
  check records (solution 4000000000 4000000000)

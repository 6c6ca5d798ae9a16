-- An exception in one evaluation (here `error`) is that call's error record;
-- the others go on.  A checkIO action's putStrLn lands in its output.
import GaolRecords
import Solution

main :: IO ()
main = withRecords $ \records -> do
  _ <- checkIO records (putStrLn "dividing 6 by 3" >> return (solution 6 3))
  _ <- checkIO records (putStrLn "dividing 1 by 0" >> return (solution 1 0))
  checkIO records (putStrLn "dividing 9 by 3" >> return (solution 9 3))

# gaol's Codebattle harness for Elixir (POST /run, no checker), run from
# /sandbox: loads the harness modules (check/gaol_harness.ex, documented
# there) and runs them.  `make test` uses their compiled form in ebin/ (built
# by `make prepare`) when it is there, which saves compiling them per run.
Code.require_file("gaol_harness.ex", __DIR__)
GaolHarness.main()

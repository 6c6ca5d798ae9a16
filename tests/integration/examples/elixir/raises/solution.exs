defmodule Solution do
  def solution(a, b) do
    IO.puts("dividing #{a} by #{b}")
    if b == 0, do: raise(ArgumentError, "division by zero")
    div(a, b)
  end
end

defmodule Solution do
  def solution(a, b) do
    IO.puts("adding #{a} and #{b}")
    a + b
  end
end

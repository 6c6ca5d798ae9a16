defmodule Solution do
  def solution(a, b) do
    a +
  end
end

def solution(a, b)
  puts "dividing #{a} by #{b}"
  raise ArgumentError, 'division by zero' if b.zero?

  a / b
end

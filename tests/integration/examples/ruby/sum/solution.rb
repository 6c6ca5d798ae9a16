def solution(a, b)
  puts "adding #{a} and #{b}"
  a + b
end

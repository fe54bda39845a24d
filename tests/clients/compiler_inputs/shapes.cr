# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A Crystal program for clients/compilers_test.py: Debian's crystal
# compiler builds it through the LLVM-C API of libLLVM-14.
abstract class Shape
  abstract def area : Float64
end

class Rect < Shape
  def initialize(@w : Float64, @h : Float64); end

  def area : Float64
    @w * @h
  end
end

class Circle < Shape
  def initialize(@r : Float64); end

  def area : Float64
    Math::PI * @r * @r
  end
end

struct Point
  getter x : Int32, y : Int32

  def initialize(@x, @y); end

  def +(o : Point)
    Point.new(x + o.x, y + o.y)
  end
end

counts = Hash(String, Int32).new(0)
"the quick brown fox jumps over the lazy dog the end".split.each { |w| counts[w] += 1 }
shapes = [Rect.new(2.0, 3.5), Circle.new(1.25), Rect.new(0.5, 8.0)] of Shape
total = shapes.sum(&.area)
path = (1..10).map { |i| Point.new(i, i * i) }.reduce { |a, b| a + b }
ch = Channel(Int64).new
4.times { |t| spawn { ch.send((1..1000).sum { |i| (i * (t + 1)) % 7 }.to_i64) } }
sums = Array.new(4) { ch.receive }.sort
begin
  ([] of Int32).first
rescue e : Enumerable::EmptyError
  caught = true
end
puts counts.to_a.sort.inspect
printf("total area %.6f\n", total)
puts "path #{path.x} #{path.y} sums #{sums} caught #{caught}"
puts "20! = #{(1_i64..20_i64).reduce { |a, b| a * b }}"

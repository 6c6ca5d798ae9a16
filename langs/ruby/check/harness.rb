# frozen_string_literal: true

# gaol's Codebattle harness for Ruby (POST /run, no checker).
#
# Loads check/solution.rb, calls solution(*arguments) once for every entry of
# check/asserts.json {"arguments": [[...], ...]} and prints the Codebattle
# record list as one JSON array on one line:
#
#   [{"type":"result","time":"0.0000123","value":3,"output":"hi\n"}, ...]
#
# - "result": the call returned; "value" is what it returned.
# - "error": the call raised (any Exception: StandardError, SystemExit from
#   `exit`, SystemStackError, NoMemoryError...); "value" is the exception's
#   message (its class name when the message is empty), as in Codebattle's
#   Ruby checker.
# - A solution that does not load (syntax error, LoadError, no `solution`
#   method, bad asserts.json) gives exactly one "error" record.
# - "time": the call's wall time in seconds, a string with 7 decimals.
# - "output": everything the call wrote to stdout (puts, print, $stdout,
#   STDOUT, system(), fd 1): fd 1 points at an unlinked temporary file while
#   user code runs, and the records go to a private duplicate of the real
#   stdout, so nothing the solution prints can corrupt them.  What the file
#   printed while loading goes to the first call's output.  stderr is left
#   alone.  One call keeps at most OUTPUT_MAX bytes of output.
# - Values: Symbols become strings, Sets sorted arrays, NaN and +-Infinity
#   the strings "NaN", "Infinity", "-Infinity", hash keys strings, other
#   objects to_s; Integers of any size stay JSON integers.  A cyclic value is
#   an error record.
# - The process exits 0 whatever the values are; Codebattle compares them.

require 'json'
require 'set'
require 'tempfile'

module GaolHarness
  HERE = __dir__
  SOLUTION = File.join(HERE, 'solution.rb')
  ASSERTS = File.join(HERE, 'asserts.json')
  OUTPUT_MAX = 1 << 20

  # Points fd 1 at an unlinked temporary file; take returns and clears what
  # was written since the last take.
  class Capture
    def initialize
      $stdout.flush
      @out = STDOUT.dup
      @out.sync = true
      @out.binmode
      @file = Tempfile.create('gaol-out-', Dir.tmpdir)
      File.unlink(@file.path)
      STDOUT.reopen(@file)
      STDOUT.sync = true
      $stdout = STDOUT
    end

    def take
      begin
        $stdout.flush
      rescue StandardError
        nil
      end
      begin
        STDOUT.flush
        size = @file.size
        data = size.positive? ? @file.pread([size, OUTPUT_MAX].min, 0) : +''
        @file.truncate(0)
        STDOUT.seek(0)
      rescue StandardError => e # the solution closed or replaced stdout
        return "[gaol: output lost: #{e.message}]"
      end
      text = data.force_encoding(Encoding::UTF_8).scrub("\uFFFD")
      text += "\n[gaol: output truncated, #{size} bytes in all]" if size > OUTPUT_MAX
      text
    end

    def emit(text)
      @out.write(text)
      @out.flush
    end
  end

  module_function

  def message(error)
    return "SystemExit: #{error.status}" if error.is_a?(SystemExit)

    text = error.message.to_s
    text = error.class.name if text.empty?
    text.dup.force_encoding(Encoding::UTF_8).scrub("\uFFFD")
  rescue StandardError
    error.class.name
  end

  def jsonable(value, depth = 0)
    raise SystemStackError, 'value nested too deeply' if depth > 512

    case value
    when nil, true, false, Integer, String then value.is_a?(String) ? value.dup.force_encoding(Encoding::UTF_8).scrub("\uFFFD") : value
    when Float
      if value.nan? then 'NaN'
      elsif value.infinite? then value.positive? ? 'Infinity' : '-Infinity'
      else value
      end
    when Symbol then value.to_s
    when Hash then value.each_with_object({}) { |(k, v), h| h[k.is_a?(String) ? k : k.to_s] = jsonable(v, depth + 1) }
    when Set
      items = value.map { |v| jsonable(v, depth + 1) }
      begin
        items.sort
      rescue StandardError
        items
      end
    when Array, Struct then value.to_a.map { |v| jsonable(v, depth + 1) }
    when Rational then value.denominator == 1 ? value.numerator : value.to_f
    else value.to_s
    end
  end

  def record(type, value, start, output)
    rec = { 'type' => type, 'time' => format('%.7f', now - start), 'value' => nil, 'output' => output }
    begin
      rec['value'] = jsonable(value)
      JSON.generate(rec, ascii_only: true, max_nesting: false)
    rescue Exception => e # rubocop:disable Lint/RescueException
      rec['type'] = 'error'
      rec['value'] = "result not serialisable: #{message(e)}"
      JSON.generate(rec, ascii_only: true)
    end
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  def load_solution
    args_list = []
    if File.exist?(ASSERTS)
      doc = JSON.parse(File.read(ASSERTS, encoding: 'UTF-8'), max_nesting: false)
      raise ArgumentError, 'asserts.json: expected {"arguments": [[...], ...]}' unless doc.is_a?(Hash) && doc['arguments'].is_a?(Array)

      args_list = doc['arguments']
    end
    # Top level, as Codebattle's checker does with require_relative: the
    # solution's methods become private methods of Object.
    TOPLEVEL_BINDING.eval('load(GaolHarness::SOLUTION, false)')
    main = TOPLEVEL_BINDING.receiver
    raise NameError, "solution.rb defines no method named 'solution'" unless main.respond_to?(:solution, true)

    [main, args_list]
  end

  def finish(cap, records)
    cap.emit("[#{records.join(', ')}]\n")
    begin
      $stderr.flush
    rescue StandardError
      nil
    end
    exit!(0) # at_exit hooks and threads of the solution do not matter
  end

  def main
    cap = Capture.new
    start = now
    begin
      target, args_list = load_solution
    rescue Exception => e # rubocop:disable Lint/RescueException
      finish(cap, [record('error', message(e), start, cap.take)])
    end
    preamble = cap.take
    records = []
    args_list.each do |arguments|
      arguments = [arguments] unless arguments.is_a?(Array)
      start = now
      begin
        value = target.send(:solution, *arguments)
        type = 'result'
      rescue Exception => e # rubocop:disable Lint/RescueException
        value = message(e)
        type = 'error'
      end
      records << record(type, value, start, preamble + cap.take)
      preamble = +''
    end
    finish(cap, records)
  end
end

GaolHarness.main

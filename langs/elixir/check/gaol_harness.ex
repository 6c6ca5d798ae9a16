# gaol's Codebattle harness for Elixir (POST /run, no checker): the modules.
# check/harness.exs runs it; `make prepare` compiles it into ebin/.
#
# Loads check/solution.exs (which defines `defmodule Solution`, as
# Codebattle's template does), calls Solution.solution(args...) once for every
# entry of check/asserts.json {"arguments": [[...], ...]} and prints the
# Codebattle record list as one JSON array on one line:
#
#   [{"type":"result","time":"0.0000123","value":3,"output":"hi\n"}, ...]
#
# - "result": the call returned; "value" is what it returned.
# - "error": the call raised, threw or exited; "value" is
#   Exception.message/1 of the exception ("throw: <term>", "exit: <reason>"
#   for the others).
# - A solution that does not load (syntax or compile error, no module
#   Solution with a solution function, bad asserts.json) gives exactly one
#   "error" record.
# - "time": the call's wall time in seconds, a string with 7 decimals.
# - "output": what the call wrote to standard output (IO.puts, IO.inspect,
#   IO.write to :stdio, from any process it spawned): the group leader is a
#   StringIO while user code runs.  What the file printed while loading goes
#   to the first call's output.  stderr is left alone.
# - Values: atoms become strings (nil, true and false stay null and bools),
#   tuples and MapSets lists, structs maps, map keys strings; integers of any
#   size stay JSON integers; pids, refs and functions their inspect/1 text.
#   Records are plain ASCII.
# - The process exits 0 whatever the values are; Codebattle compares them.
#
# Elixir 1.14 (Debian 12) has no JSON module, so this file carries a small
# strict JSON reader and writer.

defmodule GaolJSON do
  @moduledoc false

  # ---------------------------------------------------------------- decode

  def decode!(bin) when is_binary(bin) do
    {value, rest} = value(skip(bin))

    case skip(rest) do
      "" -> value
      _ -> raise ArgumentError, "asserts.json: data after the JSON value"
    end
  end

  defp skip(<<c, rest::binary>>) when c in [?\s, ?\t, ?\r, ?\n], do: skip(rest)
  defp skip(bin), do: bin

  defp value("{" <> rest), do: object(skip(rest), %{})
  defp value("[" <> rest), do: array(skip(rest), [])
  defp value("\"" <> rest), do: string(rest, [])
  defp value("true" <> rest), do: {true, rest}
  defp value("false" <> rest), do: {false, rest}
  defp value("null" <> rest), do: {nil, rest}
  defp value(bin), do: number(bin)

  defp object("}" <> rest, acc), do: {acc, rest}

  defp object("\"" <> rest, acc) do
    {key, rest} = string(rest, [])

    rest =
      case skip(rest) do
        ":" <> rest -> skip(rest)
        _ -> bad()
      end

    {val, rest} = value(rest)
    acc = Map.put(acc, key, val)

    case skip(rest) do
      "," <> rest -> object(skip(rest), acc)
      "}" <> rest -> {acc, rest}
      _ -> bad()
    end
  end

  defp object(_, _), do: bad()

  defp array("]" <> rest, []), do: {[], rest}

  defp array(bin, acc) do
    {val, rest} = value(bin)

    case skip(rest) do
      "," <> rest -> array(skip(rest), [val | acc])
      "]" <> rest -> {Enum.reverse([val | acc]), rest}
      _ -> bad()
    end
  end

  defp string("\"" <> rest, acc), do: {IO.iodata_to_binary(Enum.reverse(acc)), rest}
  defp string("\\\"" <> rest, acc), do: string(rest, ["\"" | acc])
  defp string("\\\\" <> rest, acc), do: string(rest, ["\\" | acc])
  defp string("\\/" <> rest, acc), do: string(rest, ["/" | acc])
  defp string("\\b" <> rest, acc), do: string(rest, ["\b" | acc])
  defp string("\\f" <> rest, acc), do: string(rest, ["\f" | acc])
  defp string("\\n" <> rest, acc), do: string(rest, ["\n" | acc])
  defp string("\\r" <> rest, acc), do: string(rest, ["\r" | acc])
  defp string("\\t" <> rest, acc), do: string(rest, ["\t" | acc])

  defp string(<<"\\u", hex::binary-size(4), rest::binary>>, acc) do
    cp = String.to_integer(hex, 16)

    case {cp, rest} do
      {hi, <<"\\u", lo::binary-size(4), more::binary>>} when hi in 0xD800..0xDBFF ->
        case String.to_integer(lo, 16) do
          lo when lo in 0xDC00..0xDFFF ->
            string(more, [<<0x10000 + (hi - 0xD800) * 0x400 + (lo - 0xDC00)::utf8>> | acc])

          _ ->
            string(rest, [<<0xFFFD::utf8>> | acc])
        end

      {cp, _} when cp in 0xD800..0xDFFF ->
        string(rest, [<<0xFFFD::utf8>> | acc])

      {cp, _} ->
        string(rest, [<<cp::utf8>> | acc])
    end
  end

  defp string(<<c, _::binary>>, _acc) when c < 0x20 or c == ?\\, do: bad()

  defp string(bin, acc) do
    case :binary.match(bin, ["\"", "\\"]) do
      {0, _} -> bad()
      {pos, _} -> string(binary_part(bin, pos, byte_size(bin) - pos), [binary_part(bin, 0, pos) | acc])
      :nomatch -> bad()
    end
  end

  defp number(bin) do
    case Regex.run(~r/\A-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/, bin) do
      [text] ->
        {String.to_integer(text), binary_part(bin, byte_size(text), byte_size(bin) - byte_size(text))}

      [text | parts] ->
        float =
          case parts do
            ["" | _] -> String.replace(text, ~r/[eE]/, ".0e", global: false)
            _ -> text
          end

        {:erlang.binary_to_float(float),
         binary_part(bin, byte_size(text), byte_size(bin) - byte_size(text))}

      nil ->
        bad()
    end
  end

  defp bad, do: raise(ArgumentError, "asserts.json: not valid JSON")

  # ---------------------------------------------------------------- encode

  def encode(value), do: IO.iodata_to_binary(enc(value, 0))

  defp enc(_, depth) when depth > 512, do: raise(ArgumentError, "value nested too deeply")
  defp enc(nil, _), do: "null"
  defp enc(true, _), do: "true"
  defp enc(false, _), do: "false"
  defp enc(v, _) when is_atom(v), do: str(Atom.to_string(v))
  defp enc(v, _) when is_integer(v), do: Integer.to_string(v)
  defp enc(v, _) when is_float(v), do: Float.to_string(v)
  defp enc(v, _) when is_binary(v), do: str(v)
  defp enc(v, d) when is_list(v), do: list(v, d)
  defp enc(v, d) when is_tuple(v), do: list(Tuple.to_list(v), d)

  defp enc(%MapSet{} = v, d) do
    items = MapSet.to_list(v)
    list(Enum.sort(items), d)
  end

  defp enc(%_{} = v, d), do: enc(Map.delete(Map.from_struct(v), :__struct__), d)

  defp enc(v, d) when is_map(v) do
    body =
      v
      |> Enum.map(fn {k, val} -> [str(key(k)), ?:, enc(val, d + 1)] end)
      |> Enum.intersperse(?,)

    [?{, body, ?}]
  end

  defp enc(v, _), do: str(inspect(v))

  defp list(items, d) do
    # an improper list is encoded as far as it is proper, then its tail
    {proper, tail} = split_improper(items, [])
    items = if tail == [], do: proper, else: proper ++ [tail]
    [?[, Enum.intersperse(Enum.map(items, &enc(&1, d + 1)), ?,), ?]]
  end

  defp split_improper([h | t], acc), do: split_improper(t, [h | acc])
  defp split_improper(tail, acc), do: {Enum.reverse(acc), tail}

  defp key(k) when is_binary(k), do: k
  defp key(k) when is_atom(k) or is_number(k), do: to_string(k)
  defp key(k), do: inspect(k)

  # A JSON string in plain ASCII; invalid UTF-8 becomes U+FFFD.
  def str(bin), do: [?", esc(bin, []), ?"]

  defp esc(<<>>, acc), do: Enum.reverse(acc)
  defp esc(<<?", rest::binary>>, acc), do: esc(rest, ["\\\"" | acc])
  defp esc(<<?\\, rest::binary>>, acc), do: esc(rest, ["\\\\" | acc])
  defp esc(<<?\n, rest::binary>>, acc), do: esc(rest, ["\\n" | acc])
  defp esc(<<?\r, rest::binary>>, acc), do: esc(rest, ["\\r" | acc])
  defp esc(<<?\t, rest::binary>>, acc), do: esc(rest, ["\\t" | acc])
  defp esc(<<c, rest::binary>>, acc) when c < 0x20 or c == 0x7F, do: esc(rest, [u(c) | acc])
  defp esc(<<c, rest::binary>>, acc) when c < 0x80, do: esc(rest, [c | acc])

  defp esc(<<cp::utf8, rest::binary>>, acc) when cp > 0xFFFF do
    v = cp - 0x10000
    esc(rest, [[u(0xD800 + div(v, 0x400)), u(0xDC00 + rem(v, 0x400))] | acc])
  end

  defp esc(<<cp::utf8, rest::binary>>, acc), do: esc(rest, [u(cp) | acc])
  defp esc(<<_, rest::binary>>, acc), do: esc(rest, [u(0xFFFD) | acc])

  defp u(cp), do: "\\u" <> String.pad_leading(String.downcase(Integer.to_string(cp, 16)), 4, "0")
end

defmodule GaolHarness do
  @moduledoc false

  @output_max 1_048_576

  def main do
    dir = Path.expand("check")
    leader = Process.group_leader()
    {:ok, io} = StringIO.open("")
    Process.group_leader(self(), io)
    start = now()

    case load(dir) do
      {:ok, args_list} ->
        preamble = take(io)

        {records, _} =
          Enum.map_reduce(args_list, preamble, fn args, pre ->
            args = if is_list(args), do: args, else: [args]
            start = now()

            {type, value} =
              try do
                {"result", apply(Solution, :solution, args)}
              rescue
                e -> {"error", message(e)}
              catch
                :throw, v -> {"error", "throw: " <> inspect(v)}
                :exit, r -> {"error", "exit: " <> inspect(r)}
              end

            {record(type, value, start, pre <> take(io)), ""}
          end)

        finish(leader, records)

      {:error, msg} ->
        finish(leader, [record("error", msg, start, take(io))])
    end
  end

  defp load(dir) do
    asserts = Path.join(dir, "asserts.json")

    args_list =
      if File.exists?(asserts) do
        case GaolJSON.decode!(File.read!(asserts)) do
          %{"arguments" => list} when is_list(list) -> list
          _ -> raise ArgumentError, ~s(asserts.json: expected {"arguments": [[...], ...]})
        end
      else
        []
      end

    Code.eval_file(Path.join(dir, "solution.exs"))

    cond do
      not Code.ensure_loaded?(Solution) ->
        {:error, "solution.exs defines no module named Solution"}

      not Keyword.has_key?(apply(Solution, :__info__, [:functions]), :solution) ->
        {:error, "Solution defines no public function named solution"}

      true ->
        {:ok, args_list}
    end
  rescue
    e -> {:error, message(e)}
  catch
    :throw, v -> {:error, "throw: " <> inspect(v)}
    :exit, r -> {:error, "exit: " <> inspect(r)}
  end

  defp message(e) do
    Exception.message(e)
  rescue
    _ -> inspect(e)
  end

  defp take(io) do
    {_, out} = StringIO.contents(io)
    StringIO.flush(io)

    if byte_size(out) > @output_max do
      binary_part(out, 0, @output_max) <>
        "\n[gaol: output truncated, #{byte_size(out)} bytes in all]"
    else
      out
    end
  end

  defp now, do: System.monotonic_time(:nanosecond)

  defp record(type, value, start, output) do
    time = :erlang.float_to_binary((now() - start) / 1.0e9, decimals: 7)

    {type, value_json} =
      try do
        {type, GaolJSON.encode(value)}
      rescue
        e -> {"error", IO.iodata_to_binary(GaolJSON.str("result not serialisable: " <> message(e)))}
      end

    IO.iodata_to_binary([
      ~s({"type":), GaolJSON.str(type), ~s(,"time":"), time, ~s(","value":), value_json,
      ~s(,"output":), GaolJSON.str(output), ?}
    ])
  end

  defp finish(leader, records) do
    Process.group_leader(self(), leader)
    IO.binwrite(:stdio, ["[", Enum.intersperse(records, ", "), "]\n"])
    System.halt(0)
  end
end


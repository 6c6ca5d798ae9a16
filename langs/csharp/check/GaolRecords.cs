// GaolRecords.cs: write a Codebattle C# checker in a few lines.
//
// A checker for POST /run (lang_slug "csharp") is check/Checker.cs, compiled
// with check/Solution.cs and this file by Mono's C# compiler (mcs: C# 7;
// Debian 12 ships no .NET SDK), with a static Main.  It prints one
// Codebattle record per call, one JSON object per line:
//
//   {"type":"result","time":"0.0000012","value":3,"output":"adding 1 2\n"}
//   {"type":"error","time":"0.0000040","value":"Attempted to divide by zero.","output":""}
//
// With this file a checker is:
//
//   namespace app
//   {
//       public class Checker
//       {
//           public static void Main()
//           {
//               var records = new Gaol.Records();      // captures Console.Out from here
//               var s = new Solution();
//               records.Check(() => s.solution(1, 2));
//               records.Check(() => s.solution(10, 20));
//               records.Finish();
//           }
//       }
//   }
//
// Check(f) calls f once and prints its record at once (so the records of the
// calls before a crash are not lost):
// - "result" with the returned value as JSON: null, bool, numbers
//   (BigInteger included; NaN and infinities as the strings "NaN",
//   "Infinity", "-Infinity"), strings and chars, dictionaries (keys written
//   as strings), any other IEnumerable as an array, tuples as arrays, other
//   objects as their public fields and properties; or "error" with the
//   exception's Message (Codebattle's checkers do the same);
// - "time": the call's wall time in seconds, a string with 7 decimals;
// - "output": what the call wrote through Console.Out since the previous
//   record.
// Records are plain ASCII: other characters are \u-escaped.
// Result(value) and Error(message) print a record without calling anything.
using System;
using System.Collections;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Text;

namespace Gaol
{
    public sealed class Records
    {
        private readonly TextWriter output;
        private readonly StringWriter captured = new StringWriter(CultureInfo.InvariantCulture);
        private bool finished;

        public Records()
        {
            Console.Out.Flush();
            output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
            Console.SetOut(captured);
        }

        /// <summary>Calls f, prints a "result" or "error" record; true when f returned.</summary>
        public bool Check<T>(Func<T> f)
        {
            var watch = Stopwatch.StartNew();
            T value;
            try
            {
                value = f();
            }
            catch (Exception e)
            {
                Emit("error", Json.Quote(Message(e)), watch);
                return false;
            }
            return Write(value, watch);
        }

        /// <summary>A call that returns nothing: its record's value is null.</summary>
        public bool Check(Action f)
        {
            var watch = Stopwatch.StartNew();
            try
            {
                f();
            }
            catch (Exception e)
            {
                Emit("error", Json.Quote(Message(e)), watch);
                return false;
            }
            Emit("result", "null", watch);
            return true;
        }

        public void Result(object value)
        {
            Write(value, Stopwatch.StartNew());
        }

        public void Error(string message)
        {
            Emit("error", Json.Quote(message), Stopwatch.StartNew());
        }

        /// <summary>Puts Console.Out back; what was printed after the last record goes out as is.</summary>
        public int Finish()
        {
            if (!finished)
            {
                finished = true;
                string rest = Take();
                var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
                stdout.AutoFlush = true;
                output.Flush();
                Console.SetOut(stdout);
                stdout.Write(rest);
            }
            return 0;
        }

        private bool Write(object value, Stopwatch watch)
        {
            string json;
            try
            {
                json = Json.Write(value);
            }
            catch (Exception e)
            {
                Emit("error", Json.Quote("result not serialisable: " + Message(e)), watch);
                return false;
            }
            Emit("result", json, watch);
            return true;
        }

        private static string Message(Exception e)
        {
            if (e is TargetInvocationException && e.InnerException != null)
                e = e.InnerException;
            return string.IsNullOrEmpty(e.Message) ? e.GetType().FullName : e.Message;
        }

        private string Take()
        {
            Console.Out.Flush();
            var sb = captured.GetStringBuilder();
            string text = sb.ToString();
            sb.Clear();
            return text;
        }

        private void Emit(string type, string valueJson, Stopwatch watch)
        {
            watch.Stop();
            string time = watch.Elapsed.TotalSeconds.ToString("F7", CultureInfo.InvariantCulture);
            output.Write("{\"type\":" + Json.Quote(type) + ",\"time\":\"" + time + "\",\"value\":" + valueJson
                         + ",\"output\":" + Json.Quote(Take()) + "}\n");
            output.Flush();
        }
    }

    /// <summary>The JSON writer behind Records: plain ASCII out.</summary>
    public static class Json
    {
        public static string Write(object value)
        {
            var sb = new StringBuilder();
            Write(sb, value, 0);
            return sb.ToString();
        }

        public static string Quote(string s)
        {
            var sb = new StringBuilder(s.Length + 2);
            Quote(sb, s);
            return sb.ToString();
        }

        private static void Quote(StringBuilder sb, string s)
        {
            sb.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    default:
                        if (c < 0x20 || c >= 0x7f)
                            sb.Append("\\u").Append(((int)c).ToString("x4"));
                        else
                            sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }

        private static void Write(StringBuilder sb, object value, int depth)
        {
            if (depth > 512)
                throw new InvalidOperationException("value nested too deeply");
            if (value == null)
            {
                sb.Append("null");
                return;
            }
            var inv = CultureInfo.InvariantCulture;
            if (value is string) { Quote(sb, (string)value); return; }
            if (value is char) { Quote(sb, value.ToString()); return; }
            if (value is bool) { sb.Append((bool)value ? "true" : "false"); return; }
            if (value is double) { Number(sb, (double)value); return; }
            if (value is float) { Number(sb, (float)value); return; }
            if (value is decimal) { sb.Append(((decimal)value).ToString(inv)); return; }
            if (value is Enum) { Quote(sb, value.ToString()); return; }
            if (value is IFormattable && value.GetType().IsPrimitive)
            {
                sb.Append(((IFormattable)value).ToString(null, inv));  // the integer types
                return;
            }
            Type t = value.GetType();
            if (t.FullName == "System.Numerics.BigInteger")
            {
                sb.Append(((IFormattable)value).ToString("R", inv));
                return;
            }
            var dict = value as IDictionary;
            if (dict != null)
            {
                sb.Append('{');
                bool first = true;
                foreach (DictionaryEntry entry in dict)
                {
                    if (!first) sb.Append(',');
                    first = false;
                    Quote(sb, Convert.ToString(entry.Key, inv));
                    sb.Append(':');
                    Write(sb, entry.Value, depth + 1);
                }
                sb.Append('}');
                return;
            }
            var seq = value as IEnumerable;
            if (seq != null)
            {
                sb.Append('[');
                bool first = true;
                foreach (object item in seq)
                {
                    if (!first) sb.Append(',');
                    first = false;
                    Write(sb, item, depth + 1);
                }
                sb.Append(']');
                return;
            }
            if (t.IsGenericType && (t.FullName.StartsWith("System.Tuple`") || t.FullName.StartsWith("System.ValueTuple`")))
            {
                sb.Append('[');
                bool first = true;
                foreach (var field in t.GetFields(BindingFlags.Public | BindingFlags.Instance))
                {
                    if (!first) sb.Append(',');
                    first = false;
                    Write(sb, field.GetValue(value), depth + 1);
                }
                foreach (var prop in t.GetProperties(BindingFlags.Public | BindingFlags.Instance))
                {
                    if (!prop.Name.StartsWith("Item") || prop.GetIndexParameters().Length > 0) continue;
                    if (!first) sb.Append(',');
                    first = false;
                    Write(sb, prop.GetValue(value, null), depth + 1);
                }
                sb.Append(']');
                return;
            }
            if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(System.Collections.Generic.KeyValuePair<,>))
            {
                sb.Append('[');
                Write(sb, t.GetProperty("Key").GetValue(value, null), depth + 1);
                sb.Append(',');
                Write(sb, t.GetProperty("Value").GetValue(value, null), depth + 1);
                sb.Append(']');
                return;
            }
            // any other object: its public fields and readable properties
            sb.Append('{');
            bool firstMember = true;
            foreach (var field in t.GetFields(BindingFlags.Public | BindingFlags.Instance))
            {
                if (!firstMember) sb.Append(',');
                firstMember = false;
                Quote(sb, field.Name);
                sb.Append(':');
                Write(sb, field.GetValue(value), depth + 1);
            }
            foreach (var prop in t.GetProperties(BindingFlags.Public | BindingFlags.Instance))
            {
                if (!prop.CanRead || prop.GetIndexParameters().Length > 0) continue;
                if (!firstMember) sb.Append(',');
                firstMember = false;
                Quote(sb, prop.Name);
                sb.Append(':');
                Write(sb, prop.GetValue(value, null), depth + 1);
            }
            sb.Append('}');
        }

        private static void Number(StringBuilder sb, double d)
        {
            if (double.IsNaN(d)) { sb.Append("\"NaN\""); return; }
            if (double.IsPositiveInfinity(d)) { sb.Append("\"Infinity\""); return; }
            if (double.IsNegativeInfinity(d)) { sb.Append("\"-Infinity\""); return; }
            string text = d.ToString("R", CultureInfo.InvariantCulture);
            sb.Append(text);
            if (text.IndexOfAny(new[] { '.', 'E', 'e' }) < 0)
                sb.Append(".0");
        }
    }
}

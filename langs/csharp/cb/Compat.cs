// Compat.cs: what Codebattle's C# checkers use from outside the base class
// library, for Mono, which has neither (Codebattle's image is the .NET SDK):
//
// - System.Text.Json.JsonSerializer.Serialize(object): public properties in
//   declaration order, strings escaped to ASCII, numbers in invariant
//   culture (doubles shortest round-trip), IDictionary as an object, any
//   other IEnumerable as an array.  As System.Text.Json does by default,
//   NaN and infinities are refused (ArgumentException).
// - System.Text.Json.Serialization: the attribute names a checker may use.
// - KellermanSoftware.CompareNetObjects.CompareLogic.Compare(a, b): equal
//   when both serialize to the same JSON (the NuGet package compares
//   member by member; for the values of Codebattle's types it agrees).
//
// gaol's own code, compiled with every C# checker by `make test`.
using System;
using System.Collections;
using System.Globalization;
using System.Reflection;
using System.Text;

namespace System.Text.Json
{
    public static class JsonSerializer
    {
        public static string Serialize(object value)
        {
            var sb = new StringBuilder();
            Write(sb, value, 0);
            return sb.ToString();
        }

        public static string Serialize<T>(T value)
        {
            return Serialize((object)value);
        }

        static void Write(StringBuilder sb, object v, int depth)
        {
            if (depth > 64)
                throw new InvalidOperationException("JSON: object cycle or nesting deeper than 64");
            if (v == null) { sb.Append("null"); return; }
            if (v is string s) { WriteString(sb, s); return; }
            if (v is char c) { WriteString(sb, c.ToString()); return; }
            if (v is bool b) { sb.Append(b ? "true" : "false"); return; }
            if (v is double d) { WriteDouble(sb, d); return; }
            if (v is float f) { WriteDouble(sb, f); return; }
            if (v is decimal m) { sb.Append(m.ToString(CultureInfo.InvariantCulture)); return; }
            if (v is Enum) { sb.Append(Convert.ToInt64(v, CultureInfo.InvariantCulture)); return; }
            if (v is IConvertible && v.GetType().IsPrimitive) {
                sb.Append(Convert.ToString(v, CultureInfo.InvariantCulture));
                return;
            }
            if (v is IDictionary dict) {
                sb.Append('{');
                bool first = true;
                foreach (DictionaryEntry e in dict) {
                    if (!first) sb.Append(',');
                    first = false;
                    WriteString(sb, Convert.ToString(e.Key, CultureInfo.InvariantCulture));
                    sb.Append(':');
                    Write(sb, e.Value, depth + 1);
                }
                sb.Append('}');
                return;
            }
            if (v is IEnumerable list) {
                sb.Append('[');
                bool first = true;
                foreach (object x in list) {
                    if (!first) sb.Append(',');
                    first = false;
                    Write(sb, x, depth + 1);
                }
                sb.Append(']');
                return;
            }
            WriteObject(sb, v, depth);
        }

        static void WriteObject(StringBuilder sb, object v, int depth)
        {
            sb.Append('{');
            bool first = true;
            var flags = BindingFlags.Public | BindingFlags.Instance;
            foreach (PropertyInfo p in v.GetType().GetProperties(flags)) {
                if (p.GetIndexParameters().Length > 0 || !p.CanRead)
                    continue;
                if (!first) sb.Append(',');
                first = false;
                WriteString(sb, p.Name);
                sb.Append(':');
                Write(sb, p.GetValue(v, null), depth + 1);
            }
            sb.Append('}');
        }

        static void WriteDouble(StringBuilder sb, double d)
        {
            if (double.IsNaN(d) || double.IsInfinity(d))
                throw new ArgumentException(".NET number values such as positive and negative infinity cannot be written as valid JSON.");
            sb.Append(d.ToString("R", CultureInfo.InvariantCulture));
        }

        static void WriteString(StringBuilder sb, string s)
        {
            sb.Append('"');
            foreach (char c in s) {
                switch (c) {
                case '"': sb.Append("\\\""); break;
                case '\\': sb.Append("\\\\"); break;
                case '\n': sb.Append("\\n"); break;
                case '\r': sb.Append("\\r"); break;
                case '\t': sb.Append("\\t"); break;
                case '\b': sb.Append("\\b"); break;
                case '\f': sb.Append("\\f"); break;
                default:
                    if (c < 0x20 || c > 0x7e)
                        sb.Append("\\u").Append(((int)c).ToString("x4"));
                    else
                        sb.Append(c);
                    break;
                }
            }
            sb.Append('"');
        }
    }
}

namespace System.Text.Json.Serialization
{
    [AttributeUsage(AttributeTargets.Property | AttributeTargets.Field)]
    public sealed class JsonPropertyNameAttribute : Attribute
    {
        public JsonPropertyNameAttribute(string name) { Name = name; }
        public string Name { get; }
    }

    [AttributeUsage(AttributeTargets.Property | AttributeTargets.Field)]
    public sealed class JsonIgnoreAttribute : Attribute
    {
    }
}

namespace KellermanSoftware.CompareNetObjects
{
    public class ComparisonResult
    {
        public bool AreEqual { get; set; }
        public string DifferencesString { get; set; } = "";
    }

    public class CompareLogic
    {
        public ComparisonResult Compare(object expected, object actual)
        {
            string a = System.Text.Json.JsonSerializer.Serialize(expected);
            string b = System.Text.Json.JsonSerializer.Serialize(actual);
            var r = new ComparisonResult { AreEqual = a == b };
            if (!r.AreEqual)
                r.DifferencesString = "expected " + a + ", got " + b;
            return r;
        }
    }
}

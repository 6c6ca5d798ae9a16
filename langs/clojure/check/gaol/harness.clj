;; gaol's Codebattle harness for Clojure (POST /run, no checker).
;;
;; Loads check/solution.clj (which defines `(defn solution [...])`, as
;; Codebattle's template does), calls solution once for every entry of
;; check/asserts.json {"arguments": [[...], ...]} and prints the Codebattle
;; record list as one JSON array on one line:
;;
;;   [{"type":"result","time":"0.0000123","value":3,"output":"hi\n"}, ...]
;;
;; - "result": the call returned; "value" is what it returned (lazy
;;   sequences realised).
;; - "error": the call threw (any Throwable, StackOverflowError included);
;;   "value" is the exception's message (its class name when it has none), as
;;   in Codebattle's Clojure checker.
;; - A solution that does not load (reader or compiler error, no var
;;   `solution`, bad asserts.json) gives exactly one "error" record, worded
;;   as the Clojure REPL words it.
;; - "time": the call's wall time in seconds, a string with 7 decimals.
;; - "output": what the call printed: *out* (println, print, pr...) and
;;   System.out (Java interop) are captured while user code runs.  What the
;;   file printed while loading goes to the first call's output.
;; - Values: keywords and symbols become strings, sets and lists arrays, map
;;   keys strings, ratios doubles, characters strings, NaN and +-Infinity the
;;   strings "NaN", "Infinity", "-Infinity"; integers of any size stay JSON
;;   integers.  Records are plain ASCII.
;; - The process exits 0 whatever the values are; Codebattle compares them.
;;
;; `make prepare` compiles this namespace ahead of time (classes/) and
;; stores a class-data-sharing archive (cds/), which halves the JVM's start.
(ns gaol.harness
  (:require [clojure.data.json :as json]
            [clojure.main :as cmain]
            [clojure.string :as string]
            [clojure.walk :as walk])
  (:import (java.io ByteArrayOutputStream PrintStream StringWriter)
           (java.nio.charset StandardCharsets))
  (:gen-class))

(def ^:private output-max (bit-shift-left 1 20))

(defn- message [^Throwable e]
  (or (not-empty (.getMessage e)) (.getName (class e))))

(defn- load-message [^Throwable e]
  (try
    (-> e Throwable->map cmain/ex-triage cmain/ex-str)
    (catch Throwable _ (message e))))

(defn- jsonable [v]
  (walk/prewalk
   (fn [x]
     (cond
       (and (float? x) (Double/isNaN (double x))) "NaN"
       (and (float? x) (Double/isInfinite (double x))) (if (pos? (double x)) "Infinity" "-Infinity")
       (ratio? x) (double x)
       (char? x) (str x)
       (keyword? x) (if (namespace x) (str (namespace x) "/" (name x)) (name x))
       (symbol? x) (str x)
       (map-entry? x) x
       (map? x) (into {} (map (fn [[k val]] [(if (or (string? k) (keyword? k)) k (pr-str k)) val])) x)
       (set? x) (let [items (vec x)] (try (vec (sort items)) (catch Throwable _ items)))
       (instance? java.util.Map x) (into {} x)
       (instance? Iterable x) (vec x)
       (and (some? x) (.isArray (class x))) (vec x)
       :else x))
   v))

(defn- write-json [v]
  (json/write-str v :escape-unicode true :escape-slash false))

(defn- seconds [start]
  (format "%.7f" (/ (- (System/nanoTime) start) 1e9)))

(defn- record [type value start output]
  (let [time (seconds start)
        [type vjson] (try
                       [type (write-json (jsonable value))]
                       (catch Throwable e
                         ["error" (write-json (str "result not serialisable: " (message e)))]))]
    (str "{\"type\":" (write-json type) ",\"time\":\"" time "\",\"value\":" vjson
         ",\"output\":" (write-json output) "}")))

(defn- find-solution []
  (or (ns-resolve 'user 'solution)
      (some (fn [n]
              (when-not (re-find #"^(clojure|gaol)\." (str (ns-name n)))
                (get (ns-publics n) 'solution)))
            (all-ns))))

(defn -main
  "Runs the solution in DIR (default check, relative to the working directory)."
  [& [dir]]
  (let [dir (or dir "check")
        real-out (PrintStream. (java.io.FileOutputStream. java.io.FileDescriptor/out) true "UTF-8")
        bytes (ByteArrayOutputStream.)
        writer (StringWriter.)
        take! (fn []
                (.flush ^PrintStream System/out)
                (.flush writer)
                (let [text (str (.toString writer) (.toString bytes StandardCharsets/UTF_8))]
                  (.setLength (.getBuffer writer) 0)
                  (.reset bytes)
                  (if (> (count text) output-max)
                    (str (subs text 0 output-max) "\n[gaol: output truncated, " (count text) " characters in all]")
                    text)))
        finish (fn [records]
                 (.println real-out (str "[" (string/join ", " records) "]"))
                 (.flush real-out)
                 (shutdown-agents)
                 (System/exit 0))]
    (System/setOut (PrintStream. bytes true "UTF-8"))
    (binding [*out* writer
              *ns* (create-ns 'user)]
      (refer-clojure)
      (let [start (System/nanoTime)
            loaded (try
                     (let [f (java.io.File. (str dir "/asserts.json"))
                           doc (when (.exists f) (json/read-str (slurp f :encoding "UTF-8")))
                           args-list (if (.exists f) (get doc "arguments") [])]
                       (when-not (and (or (nil? doc) (map? doc)) (sequential? args-list))
                         (throw (ex-info "asserts.json: expected {\"arguments\": [[...], ...]}" {})))
                       (load-file (str dir "/solution.clj"))
                       (if-let [solution (find-solution)]
                         {:solution solution :args args-list}
                         {:error "solution.clj defines no function named solution"}))
                     (catch Throwable e {:error (load-message e)}))]
        (if (:error loaded)
          (finish [(record "error" (:error loaded) start (take!))])
          (let [preamble (take!)]
            (finish
             (loop [args-list (seq (:args loaded)) pre preamble out []]
               (if-let [args (first args-list)]
                 (let [args (if (sequential? args) args [args])
                       start (System/nanoTime)
                       [type value] (try
                                      (let [v (apply (:solution loaded) args)]
                                        ["result" (if (seq? v) (doall v) v)])
                                      (catch Throwable e ["error" (message e)]))]
                   (recur (next args-list) "" (conj out (record type value start (str pre (take!))))))
                 out)))))))))

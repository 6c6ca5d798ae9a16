(defn solution [a b]
  (println "dividing" a "by" b)
  (when (zero? b)
    (throw (IllegalArgumentException. "division by zero")))
  (quot a b))

library(testthat)
library(fastconn)

test_check("fastconn")

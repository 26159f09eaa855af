# R CMD INSTALL runs this in src/ after compiling, in place of its own copying of the shared
# object ("Writing R Extensions", 1.1.5, install.libs.R): install it as R would, then remove what
# configure and the compiler wrote here. R builds a package source directory in place, so without
# this `R CMD INSTALL bindings/r` would leave Makevars, *.o and fastconn.so in the source tree.
files <- Sys.glob(paste0("*", SHLIB_EXT))
dest <- file.path(R_PACKAGE_DIR, paste0("libs", R_ARCH))
dir.create(dest, recursive = TRUE, showWarnings = FALSE)
file.copy(files, dest, overwrite = TRUE)
if (file.exists("symbols.rds")) file.copy("symbols.rds", dest, overwrite = TRUE)
unlink(c(files, Sys.glob("*.o"), "symbols.rds", "Makevars"))

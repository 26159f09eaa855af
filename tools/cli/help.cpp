// help.cpp - usage texts, in the habit of AFNI and FSL programs: a usage line, what the program
// does, its options, and examples that run on the bundled scan.
#include <cstdio>
#include <cstring>

#include "commands.hpp"

namespace fcli {
namespace {

const char* kCommon =
    "Input and mask:\n"
    "  INPUT, -i FILE        4D NIfTI-1 or NIfTI-2 scan (.nii or .nii.gz), x y z time\n"
    "  -m, --mask FILE       3D mask on the scan's grid: its nonzero voxels are analysed\n"
    "  --automask            no mask file: analyse the voxels whose time series is nonzero,\n"
    "                        non-constant and finite (the default when --mask is not given)\n"
    "Output:\n"
    "  -o, --output FILE     the output (also -prefix FILE); a JSON sidecar is written beside it,\n"
    "                        named like the output with .json for its extension (BIDS style)\n"
    "  --force               overwrite outputs and sidecars that exist (without it an existing\n"
    "                        file is refused before anything is computed and left untouched)\n"
    "  -q, --quiet           no progress or information on stderr (errors are still printed)\n"
    "Computation:\n"
    "  --backend B           auto (CUDA when a GPU is visible, else CPU; default), cpu or cuda\n"
    "  --threads N           CPU threads (0 = all cores; default 0)\n"
    "  --memory-limit BYTES  working memory of one computation, e.g. 4G, 512M (default: what is free)\n"
    "  --precision P         fp32 (default; |r - r64| <= 1e-5), fp64 (<= 1e-12), tf32 (GPU, about 1e-3)\n"
    "  -h, --help            this text\n";

const char* kEdges =
    "Edges (give one):\n"
    "  --threshold R         an edge where |r| >= R (0 <= R <= 1)\n"
    "  --signed              with --threshold: an edge where r >= R (positive edges for R > 0)\n"
    "  --density D           the strongest fraction D of all pairs by |r| (0.05 = 5 %)\n"
    "  --top-k K             each voxel's K strongest |r|, symmetrized\n";

struct Help {
  const char* name;
  const char* summary;
  const char* usage;
  const char* text;
  bool edges;
  bool common = true;  // whether the single-scan options (kCommon) apply
};

const Help kHelp[] = {
    {"degree", "degree centrality maps (binary and weighted)",
     "fastconn degree INPUT -o DEGREE.nii.gz (--threshold R | --density D | --top-k K) [options]",
     "Degree centrality of every voxel of the mask: how many voxels it correlates with under the\n"
     "edge rule (binary degree), and optionally the sum of those |r| (weighted degree; the sum\n"
     "of r with --signed). Computed without forming the N x N matrix (fc_pcc_degree).\n"
     "Own options:\n"
     "  --weighted-output FILE  also write the weighted degree map\n"
     "Example:\n"
     "  fastconn degree tests/data/fmri1.nii.gz --automask --threshold 0.5 -o /tmp/degree.nii.gz\n",
     true},
    {"seed", "seed-to-voxel correlation maps (r and Fisher z)",
     "fastconn seed INPUT -o R.nii.gz (--seed-voxel I,J,K | --seed-mask ROI | --seed-ts FILE) [options]",
     "Pearson r between a seed time series and every voxel of the mask (fc_pcc_cross).\n"
     "Own options:\n"
     "  --seed-voxel I,J,K    the series of voxel (I, J, K), 0-based indices as in FSL and AFNI\n"
     "  --seed-mask FILE      the mean series of the nonzero voxels of a ROI mask on the scan's grid\n"
     "  --seed-ts FILE        a time series from a text file (.1D: one value per line, # comments)\n"
     "  --z-output FILE       also write Fisher z = atanh(r) (r clipped to +-(1 - 1e-7))\n"
     "Example:\n"
     "  fastconn seed tests/data/fmri1.nii.gz --seed-voxel 5,5,9 -o /tmp/r.nii.gz --z-output /tmp/z.nii.gz\n",
     false},
    {"graph", "the network as a graph file and a text edge list",
     "fastconn graph INPUT -o NET.fcg (--threshold R | --density D | --top-k K) [options]",
     "The network of the mask's voxels (fc_pcc_graph, without the N x N matrix), saved in fastconn's\n"
     "graph file format (fc_graph_save: magic FCGRAPH1, CSR arrays; fc_graph_load reads it).\n"
     "Nodes are the mask's voxels in NIfTI storage order (x fastest), numbered from 0.\n"
     "Own options:\n"
     "  --weights W           binary (default), signed (the edge weighs r) or abs (|r|)\n"
     "  --edge-list FILE      also write the edges as text: 'i j weight' per line, i < j\n"
     "  --nodes FILE          also write the nodes as text: 'node i j k' (voxel indices) per line\n"
     "Example:\n"
     "  fastconn graph tests/data/fmri1.nii.gz --density 0.01 -o /tmp/net.fcg --edge-list /tmp/net.txt\n",
     true},
    {"dfc", "sliding-window degree maps (4D, one volume per window)",
     "fastconn dfc INPUT -o DEGREE4D.nii.gz --window L [--step S] (--threshold R | --density D | --top-k K) [options]",
     "Dynamic connectivity: the degree of every voxel in each sliding window of L time points every\n"
     "S time points (fc_dfc_degree), as a 4D map whose volume k is window k (its 4th voxel size is\n"
     "S x TR), 4D even when there is one window (L = T). Windows: W = floor((T - L) / S) + 1.\n"
     "Per-pair mean and sd over the windows have no voxel map; --mean-degree gives each voxel's\n"
     "mean degree over the windows instead.\n"
     "Own options:\n"
     "  --window L            time points per window (>= 2, required)\n"
     "  --step S              time points between window starts (default 1)\n"
     "  --taper T             rectangular (default) or gaussian (Allen et al. 2014)\n"
     "  --sigma SD            the Gaussian taper's sd in time points (default 3)\n"
     "  --weighted-output FILE  also write the weighted degree per window (4D)\n"
     "  --mean-degree FILE    also write the mean degree over the windows (3D)\n"
     "  --flexibility FILE    also write each voxel's flexibility (3D): multilayer modularity (Mucha\n"
     "                        et al. 2010, fc_multilayer_modularity_v2) over the windows' networks,\n"
     "                        each voxel coupled to itself in consecutive windows; the fraction of\n"
     "                        consecutive window pairs in which its module changes (Bassett 2011)\n"
     "  --module-labels FILE  also write those modules (4D int32, volume k = window k; module ids\n"
     "                        from 1 shared across windows, 0 outside the mask)\n"
     "  --omega W             those modules: the coupling >= 0 (default 1)\n"
     "  --resolution G        those modules: gamma >= 0 of every window (default 1)\n"
     "  --random-seed N       those modules: seed of the node orders (default 1)\n"
     "  --weights W           those modules: the windows' edge weights, binary (default) or abs\n"
     "  --multilayer-algorithm A  those modules: queue (default: single moves from a seeded queue,\n"
     "                        on the host) or synchronous (rounds of simultaneous moves; the same\n"
     "                        labels on every backend and thread count)\n"
     "Examples:\n"
     "  fastconn dfc tests/data/fmri1.nii.gz --window 20 --step 5 --threshold 0.5 -o /tmp/dfc.nii.gz\n"
     "  fastconn dfc tests/data/fmri1.nii.gz --window 20 --step 10 --density 0.05 -o /tmp/dfc.nii.gz \\\n"
     "      --flexibility /tmp/flexibility.nii.gz --omega 0.5\n",
     true},
    {"modules", "modules (leading eigenvector or Leiden) as an integer label map",
     "fastconn modules INPUT -o LABELS.nii.gz (--threshold R | --density D | --top-k K) [options]\n"
     "       fastconn modules --graph NET.fcg -o LABELS.tsv [options]",
     "Builds the network (fc_pcc_graph) and splits it into modules: Newman's leading eigenvector\n"
     "with refinement (--method eigen, fc_modularity) or Leiden (--method leiden, fc_leiden: every\n"
     "module connected). The label map is int32: module 1, 2, ... inside the mask (numbered by\n"
     "first voxel), 0 outside. Q is in the sidecar.\n"
     "With --graph, the network is a graph file instead (fc_graph_load: what `fastconn graph` or\n"
     "fc_graph_save wrote), with its own weights: no scan, mask, edge rule or --weights. The labels\n"
     "are then a text table: '#' comment lines, then 'node<TAB>module' per node, nodes numbered from\n"
     "0 as in the graph (and in `fastconn graph --edge-list`), modules from 1 by first node.\n"
     "Own options:\n"
     "  --graph FILE          the network from a graph file instead of a scan (see above)\n"
     "  --weights W           binary (default), signed or abs: the network's edge weights\n"
     "  --method M            eigen (default) or leiden\n"
     "  --resolution G        gamma > 0 (default 1); with --quality cpm, the CPM's density\n"
     "  --random-seed N       seed of the start vectors (eigen) or node orders (leiden) (default 1)\n"
     "  --signed-mode M       gomez (default) or rubinov, for --weights signed\n"
     "  --max-modules K       eigen: stop splitting at K modules (default: no limit)\n"
     "  --min-size S          eigen: never make a module smaller than S voxels (default 1)\n"
     "  --no-refine           eigen: spectral splits only, no vertex-move refinement\n"
     "  --quality Q           leiden: modularity (default) or cpm (Constant Potts Model)\n"
     "  --max-iterations P    leiden: passes at most (default 0: until no voxel moves)\n"
     "  --leiden-algorithm A  leiden: queue (default: fc_leiden's single moves, on the host) or\n"
     "                        synchronous (rounds of simultaneous moves: on the GPU with --backend\n"
     "                        cuda, else on the host's threads; the same labels either way)\n"
     "Examples:\n"
     "  fastconn modules tests/data/fmri1.nii.gz --density 0.05 -o /tmp/modules.nii.gz\n"
     "  fastconn modules tests/data/fmri1.nii.gz --density 0.05 --method leiden -o /tmp/leiden.nii.gz\n"
     "  fastconn graph tests/data/fmri1.nii.gz --density 0.05 -o /tmp/net.fcg\n"
     "  fastconn modules --graph /tmp/net.fcg --method leiden -o /tmp/labels.tsv\n",
     true},
    {"ecm", "eigenvector centrality maps (fast ECM, or thresholded ECM)",
     "fastconn ecm INPUT -o ECM.nii.gz [--threshold R | --density D | --top-k K [--weighted]] [options]",
     "Eigenvector centrality of every voxel of the mask, scaled as AFNI's 3dECM scales it (unit L2\n"
     "norm over the mask, entries >= 0); the eigenvalue is in the sidecar.\n"
     "Without an edge rule: the fast ECM (Wink et al. 2012, 3dECM -fecm), the leading eigenvector\n"
     "of (R + 1) / 2, computed without forming the N x N matrix (fc_pcc_ecm). A voxel constant in\n"
     "time (possible with --mask) has r = 0 with every voxel, so it gets the share of the + 1 term\n"
     "alone (AFNI's answer).\n"
     "With an edge rule: the thresholded ECM (Lohmann et al. 2010; C-PAC's eigenvector centrality),\n"
     "the leading eigenvector of the network's adjacency matrix, binarized or, with --weighted,\n"
     "weighted by |r| (by r with --signed) (fc_pcc_ecm_thresholded). The network is built as\n"
     "`fastconn graph` builds it and held in memory (about 12 bytes x density x N^2); voxels\n"
     "without edges get 0.\n"
     "Own options:\n"
     "  --weighted            thresholded ECM: weight the edges by |r| (r with --signed)\n"
     "  --tolerance X         the eigensolve's residual test, in [1e-13, 0.1] (default 1e-10)\n"
     "Examples:\n"
     "  fastconn ecm tests/data/fmri1.nii.gz -o /tmp/ecm.nii.gz\n"
     "  fastconn ecm tests/data/fmri1.nii.gz --density 0.05 --weighted -o /tmp/ecm_w.nii.gz\n",
     true},
    {"triangle", "every pair's r as a raw float32 file",
     "fastconn triangle INPUT -o R.f32 [--force] [options]",
     "The strict upper triangle of the correlation matrix of the mask's voxels, N(N-1)/2 float32\n"
     "values in row order ((0,1), (0,2), ..., (1,2), ...; scipy's squareform), no header,\n"
     "streamed block by block. Its size is printed first; a triangle larger than the free disk\n"
     "space is refused unless --force. In numpy: np.fromfile(FILE, np.float32).\n"
     "Own options:\n"
     "  --force               also: write even if the triangle is larger than the free disk space\n"
     "Example:\n"
     "  fastconn triangle tests/data/fmri1.nii.gz -o /tmp/r.f32\n",
     false},
    {"lfcd", "local functional connectivity density map (Tomasi and Volkow 2010, AFNI's 3dLFCD)",
     "fastconn lfcd INPUT -o LFCD.nii.gz --threshold R [--abs] [--neighbourhood 6|18|26] [options]",
     "For every voxel of the mask (the seed), the number of voxels in the cluster grown from it:\n"
     "a mask voxel next to the cluster joins when its r with the seed is >= R (|r| >= R with --abs),\n"
     "until none does (fc_pcc_lfcd; only seed-to-neighbour products, never the N x N matrix).\n"
     "The seed counts itself (AFNI's convention): every non-constant voxel scores >= 1; constant\n"
     "voxels score 0 and never join. Voxels outside the mask are 0 in the map.\n"
     "Own options:\n"
     "  --threshold R         r >= R joins (-1 <= R <= 1; required)\n"
     "  --abs                 |r| >= R joins instead (0 <= R <= 1)\n"
     "  --neighbourhood N     6 (faces), 18 (faces and edges) or 26 (faces, edges and corners; default)\n"
     "Example:\n"
     "  fastconn lfcd tests/data/fmri1.nii.gz --threshold 0.6 -o /tmp/lfcd.nii.gz\n",
     false},
    {"batch", "one pipeline over many scans, resumable (fastconn.cohort's files)",
     "fastconn batch SCAN... -o OUT --step STEP[:KEY=VALUE,...]... [--list FILE] [options]",
     "Runs a per-subject pipeline over a cohort of 4D NIfTI scans, one subject after the other in\n"
     "this process on one context, and writes what python3 -m fastconn.cohort writes, so either\n"
     "runner resumes the other's output folder: OUT/<subject>/<step>.<array>.npy (numpy .npy,\n"
     "as np.save writes it), OUT/<subject>/voxels.npy (the NIfTI indices of the analysed voxels:\n"
     "the finite, non-constant ones), the done-marker OUT/<subject>/subject.json (input, pipeline,\n"
     "settings, version, every output's size and SHA-256) and OUT/manifest.json. Every file is\n"
     "written under a temporary name in its folder, fsync'ed and renamed: a run killed mid-subject\n"
     "leaves no half-written file under a final name. A rerun skips complete subjects and redoes\n"
     "the others (removing a killed run's temporary files). A bad scan is reported with its name\n"
     "and the other subjects go on; the exit status is then 1, with a summary of the failures.\n"
     "Series are the scan's values as float32 (as the Python runner reads them).\n"
     "Steps (the Python runner's names and parameters; values are JSON, else text):\n"
     "  degree:RULE[,signed=true]          degree, strength (N)\n"
     "  window_degree:width=L[,step=S],RULE degree, strength (windows x N)\n"
     "  triangle[:order=row|col]           r (N(N-1)/2)\n"
     "  matrix                             r (N x N)\n"
     "  modules:RULE[,weights=r|abs|binary,resolution=G,max_communities=K,min_size=M,seed=S,\n"
     "          eigen_threshold=E,signed_mode=gomez|rubinov]   labels (N), q\n"
     "  RULE is one of threshold=R, density=D, topk=K; name=NAME renames a step's files.\n"
     "  (the Gaussian taper, .npy scans and steps of your own: python3 -m fastconn.cohort)\n"
     "Options:\n"
     "  SCAN...               NIfTI scans; subject ids are the file names without .nii(.gz)\n"
     "  --list FILE           scans, one a line, or ID<tab>PATH on every line (# comments)\n"
     "  -o, --output DIR      the output folder\n"
     "  --step STEP           a pipeline step (repeat, in order)\n"
     "  --pipeline FILE       steps as a JSON list of {\"step\": NAME, \"name\": ..., params}\n"
     "  --force               redo every subject (default: resume)\n"
     "  --verify sha256|size  how a complete subject's outputs are checked (default sha256)\n"
     "  --backend B           auto (default), cpu or cuda\n"
     "  --precision P         fp32 (default), fp64 (triangle and matrix then float64), tf32\n"
     "  --constant nan|zero   what a constant series correlates as (default nan, as fastconn.Context)\n"
     "  --threads N           CPU threads (0 = all cores; default 0)\n"
     "  --memory-limit BYTES  working memory of one computation, e.g. 4G\n"
     "  -q, --quiet           no progress on stderr (failures are still printed)\n"
     "  -h, --help            this text\n"
     "Example:\n"
     "  fastconn batch sub-01.nii.gz sub-02.nii.gz -o out --backend cpu \\\n"
     "      --step degree:threshold=0.5 --step window_degree:width=50,step=10,topk=10 \\\n"
     "      --step modules:density=0.05\n",
     false, false},
};

}  // namespace

void print_main_help(bool to_stderr) {
  FILE* out = to_stderr ? stderr : stdout;
  std::fputs(
      "Usage: fastconn COMMAND INPUT -o OUTPUT [options]\n"
      "       fastconn COMMAND --help | fastconn --help | fastconn --version\n\n"
      "Functional connectivity of a 4D NIfTI fMRI scan (Pearson correlation of voxel time series),\n"
      "on the GPU when there is one and on the CPU otherwise.\n\n"
      "Commands:\n",
      out);
  for (const Help& h : kHelp) std::fprintf(out, "  %-9s %s\n", h.name, h.summary);
  std::fputs(
      "\nEvery command takes the scan, a mask (--mask FILE, or --automask: nonzero non-constant\n"
      "voxels, the default), -o OUTPUT, and --backend, --threads, --memory-limit, --precision.\n"
      "Maps are float32 NIfTI (labels int32) with the scan's geometry; each output gets a JSON\n"
      "sidecar. An existing output or sidecar is refused unless --force. Ctrl-C cancels cleanly.\n\n"
      "Exit status: 0 done, 1 bad input or usage, 2 library failure, 130 cancelled (Ctrl-C).\n"
      "Example:\n"
      "  fastconn degree tests/data/fmri1.nii.gz --automask --threshold 0.5 -o /tmp/degree.nii.gz\n",
      out);
}

void print_command_help(const char* command) {
  for (const Help& h : kHelp) {
    if (std::strcmp(h.name, command) != 0) continue;
    std::printf("Usage: %s\n\n%s: %s.\n\n%s\n%s%s", h.usage, h.name, h.summary, h.text, h.edges ? kEdges : "",
                h.common ? kCommon : "");
    return;
  }
}

}  // namespace fcli

"""Names vulture reports as unused that are reached dynamically (pyproject.toml [tool.vulture] reads
this file with gradcli/; tests/test_lint.py and .ci/run run it). Only names that something reaches
by name belong here: remove dead code instead of listing it. The compiler's lowering methods (s_*,
e_*, g_*: statements.STATEMENTS and the expression dispatch name them) are ignored by pattern in
pyproject.toml. `_` stands for any object (vulture's form for attributes)."""
# ruff: noqa

# The grammar's reducers: the parser calls the _Builder method named by each rule or alias of
# grammar/gradscript.lark (lalr.py reads them by name).
# gradcli/lang/builder.py (and its mixin signatures.py: the parameter and argument lists)
_.eval_input
_.simple_stmt
_.augassign
_.annassign
_.return_stmt
_.del_stmt
_.yield_stmt
_.dotted_name
_.dotted_as_name
_.import_as_names
_.import_as_name
_.from_stmt
_.if_stmt
_.elif_clause
_.else_clause
_.for_stmt
_.with_stmt
_.with_item
_.try_stmt
_.finally_clause
_.funcdef
lambda_params
_.param_default
_.param_ann
_.param_ann_default
_.star_param
_.kw_param
_.classdef
_.decorated
_.decorator
_.star_expr
_.lambdef
_.ellipsis
_.const_none
_.const_true
_.const_false
_.reserved
_.tuple_display
_.paren
_.list_display
_.listcomp
_.dict_display
_.dictcomp
_.set_display
_.setcomp
_.getitem_tuple
_.comp_for
_.genexp_arg
_.star_arg
_.dstar_arg

# The torch-shaped API: scripts reach these by name (torch.X, Tensor.X, nn.X, F.X, optim.X, torch.autograd.X,
# random.X), and keyword parameters that torch's signatures have and gradcli accepts without using.
# gradcli/engine/api.py
can_cast
concat
memory_format
volatile
check_available
accelerator
backends
newaxis
FloatTensor
DoubleTensor
HalfTensor
LongTensor
IntTensor
ShortTensor
CharTensor
ByteTensor
BoolTensor
# gradcli/engine/autograd.py
_.register_prehook
# gradcli/engine/autograd_api.py
only_inputs
# gradcli/engine/autograd_functional.py
vjp
jvp
vhp
hvp
# gradcli/engine/autograd_graph.py
_.register_prehook
# gradcli/engine/func.py: torch.func's members, bound by name (func.NAMES)
vmap
functional_call
stack_module_state
# gradcli/engine/forward_ad.py: torch.autograd.forward_ad's members, bound by name (forward_ad.NAMES), and
# the flag lang/pyvalues.py reads on a class without code of its own
make_dual
unpack_dual
_.__gradcli_engine__

# gradcli/engine/custom_function.py
_.save_for_backward
_.mark_dirty
_.mark_non_differentiable
_.set_materialize_grads
_.saved_tensors
vjp
# gradcli/engine/dtypes.py
_.to_real
# gradcli/engine/factory.py
pin_memory
memory_format
logspace
# gradcli/engine/gradcheck.py
check_batched_grad
check_grad_dtypes
check_undefined_grad
check_backward_ad
check_batched_forward_grad
check_forward_ad
masked
gen_non_contig_grad_outputs
check_fwd_over_rev
check_rev_over_rev
# gradcli/engine/methods.py
_.new_tensor
_.new_zeros
_.new_ones
_.new_empty
_.new_full
# gradcli/engine/nn/functional.py
cudnn_enabled
cudnn_enable
# gradcli/engine/nn/init.py
trunc_normal_
constant_
eye_
dirac_
xavier_uniform_
xavier_normal_
kaiming_normal_
orthogonal_
sparse_
# gradcli/engine/nn/modules_transformer.py: nn.MultiheadAttention's public method
merge_masks
# gradcli/engine/nn/loss.py
MSELoss
L1Loss
SmoothL1Loss
HuberLoss
KLDivLoss
BCELoss
BCEWithLogitsLoss
MarginRankingLoss
HingeEmbeddingLoss
CosineEmbeddingLoss
TripletMarginLoss
TripletMarginWithDistanceLoss
PoissonNLLLoss
GaussianNLLLoss
MultiLabelSoftMarginLoss
NLLLoss
CrossEntropyLoss
CosineSimilarity
# gradcli/engine/nn/module.py
tensor_contents
protocol
dump_patches
call_super_init
_.register_forward_hook
always_call
with_kwargs
_.register_full_backward_hook
_.register_backward_hook
_.register_full_backward_pre_hook
register_module
_.get_parameter
_.eval
# gradcli/engine/optim_lr_scheduler_more.py
CyclicLR
# gradcli/engine/optim_more.py
Adamax
NAdam
RAdam
ASGD
Rprop
# gradcli/engine/data.py (torch.utils.data)
TensorDataset
random_split
DataLoader
# gradcli/engine/nn/rnn.py (nn.RNN ... nn.GRUCell, reached by name from torch.nn; torch's module methods)
RNN
GRU
LSTM
RNNCell
LSTMCell
GRUCell
_.flatten_parameters
_.all_weights
# gradcli/engine/nn/rnn_packed.py (torch.nn.utils.rnn, reached by name; PackedSequence's methods)
pack_sequence
unpack_sequence
_.is_pinned
# gradcli/engine/nn/functional_shuffle.py
PixelShuffle
PixelUnshuffle
ChannelShuffle
Softmax2d
PairwiseDistance
# gradcli/engine/nn/functional_unpool.py (nn.X, reached by name)
MaxUnpool1d
MaxUnpool2d
# gradcli/engine/nn/modules_more.py
ZeroPad1d
ZeroPad2d
ZeroPad3d
ReflectionPad1d
ReflectionPad2d
ReflectionPad3d
ReplicationPad1d
ReplicationPad2d
ReplicationPad3d
CircularPad1d
CircularPad2d
CircularPad3d
RMSNorm
AvgPool1d
AdaptiveAvgPool1d
AdaptiveMaxPool1d
AdaptiveMaxPool2d
AdaptiveMaxPool3d
AdaptiveAvgPool3d
InstanceNorm1d
InstanceNorm2d
LPPool1d
LPPool2d
LocalResponseNorm
# gradcli/engine/nn/modules_activation.py
ReLU
ReLU6
Hardtanh
LeakyReLU
RReLU
CELU
SELU
GELU
Mish
Softplus
Threshold
Softshrink
Sigmoid
Tanh
LogSigmoid
Softsign
Tanhshrink
Hardsigmoid
Hardswish
Softmax
LogSoftmax
Softmin
GLU
# gradcli/engine/nn/modules_layers.py
Identity
Bilinear
Dropout1d
Dropout2d
Dropout3d
AlphaDropout
FeatureAlphaDropout
Flatten
Unflatten
Conv1d
Conv2d
Conv3d
ConvTranspose1d
ConvTranspose2d
ConvTranspose3d
Fold
Unfold
MaxPool1d
MaxPool3d
AvgPool3d
AvgPool2d
AdaptiveAvgPool2d
LayerNorm
BatchNorm1d
BatchNorm2d
Embedding
_.from_pretrained
# gradcli/engine/nn/utils.py
clip_grad_norm_
clip_grad_value_
parameters_to_vector
vector_to_parameters
# gradcli/engine/ops/conversion.py
memory_format
non_blocking
# gradcli/engine/ops/arithmetic.py
divide
# gradcli/engine/ops/unary_math.py
absolute
# gradcli/engine/ops/inplace.py
non_blocking
# gradcli/engine/ops/linalg.py
ger
# gradcli/engine/ops/linalg_extra.py
check_errors
# gradcli/engine/ops/scan.py
assume_unique
# gradcli/engine/ops/shape.py
swapdims
concat
memory_format
# gradcli/engine/ops/special.py
reset_warn_once
# gradcli/engine/nn/parametrize.py (torch.nn.utils.parametrize, bound by name: parametrize.NAMES)
remove_parametrizations
type_before_parametrizations
transfer_parametrizations_and_params
# gradcli/engine/optim_swa.py (torch.optim.swa_utils, bound by name: optim_swa.NAMES)
get_ema_multi_avg_fn
get_swa_multi_avg_fn
get_ema_avg_fn
_.update_parameters
update_bn
# gradcli/engine/nn/prune.py (torch.nn.utils.prune, bound by name: prune.NAMES; torch's method API)
identity
random_unstructured
l1_unstructured
random_structured
ln_structured
global_unstructured
is_pruned
_.prune
_.PRUNING_TYPE
# gradcli/engine/optim.py
SGD
AdamW
RMSprop
Adagrad
Adadelta
# gradcli/engine/optim_lr_scheduler.py
LambdaLR
MultiplicativeLR
StepLR
MultiStepLR
ConstantLR
LinearLR
ExponentialLR
CosineAnnealingLR
_get_lr_called_within_step  # read back by state_dict() through vars()
# gradcli/engine/optim_lr_scheduler_more.py
PolynomialLR
CosineAnnealingWarmRestarts
OneCycleLR
# gradcli/engine/rng_factory.py
pin_memory
memory_format
# gradcli/engine/tensor.py
is_sparse
is_quantized
ndimension
nelement
_.element_size
_.is_cpu
_.get_device
memory_format
_.data_ptr
_.retain_grad
_.register_post_accumulate_grad_hook
context
return_scalar
tensor_contents
protocol
non_blocking
# gradcli/lang/random311.py
_.choice
_.shuffle
_.randrange
_.gauss
_.normalvariate
_.expovariate
_.gammavariate

# Called by Python or a library by name: dunder protocols, Typer commands and their options, Typer's
# coercion hook, Lark's lexer and indenter attributes, Pygments' lexer attributes, prompt_toolkit's
# completer and key bindings, pytest's hooks, warnings.showwarning, file-like attributes.
# gradcli/cli/app.py
_.__signature__
_.__annotations__
mermaid
svg
png
ci_test
_._coerce_value
# gradcli/cli/isolate.py
encoding
# gradcli/engine/methods.py
_.__setitem__
# gradcli/lang/handlers.py
_.__cause__
# gradcli/lang/lexer.py
filenames
mimetypes
url
analyse_text
# gradcli/lang/parser.py
_.lex
parser_state
NL_type
OPEN_PAREN_types
CLOSE_PAREN_types
INDENT_type
DEDENT_type
tab_len
_.process
# gradcli/lang/runner.py
_.showwarning
# gradcli/repl/completion.py
_.get_completions
complete_event
# gradcli/repl/terminal.py
_accept_completion
_enter
_indent
is_soft_wrap
line_number
# gradcli/testing/pytest_plugin.py
pytest_addoption
pytest_collect_file
_.runtest
_.reportinfo

# Reached by name through a table: the MKL kernels (backend.slot("gemm")).
# gradcli/engine/mkl_backend.py
gemm

# Test hooks, used by the test suite only.
# gradcli/backend.py
active
# gradcli/engine/rng_math.py
set_capability
# gradcli/engine/mkl_backend.py
in_effect
# gradcli/engine/rng_libm.py (a test hook: which libm loops NumPy's element loop runs)
fast_loops
# gradcli/render/jsonout.py
schema
# The golden comparison's entry for a runner RunResult: the project's golden tests (tests/test_samples.py,
# test_goldens_meta.py, test_tutorial_corpus.py) compare run_source's results with it; `gradcli test`
# compares the executor's outcomes (actual_from_outcome).
# gradcli/testing/golden.py
actual_from_result
# torch.distributions' API, reached by scripts by name (engine/distributions.py): the Distribution
# methods and class attributes torch's tutorials read
# gradcli/engine/distributions.py
has_rsample
has_enumerate_support
set_default_validate_args
perplexity
param_shape
log_prob
enumerate_support
icdf
sample_n
# gradcli/engine/distributions_constraints.py: torch.distributions.constraints' public names, which api.py
# exports by name (its NAMES) for scripts
dependent
dependent_property
positive_integer
lower_triangular
corr_cholesky
symmetric
positive_semidefinite

# gradcli/engine/torch_signatures.py (generated): NOT_PARSED is read by tests/test_torch_signatures.py, which tells
# a torch.X function the generator never looked at (the file is stale) without torch
NOT_PARSED
NAMESPACE_NOT_PARSED  # the same for torch.linalg.X and torch.special.X

# Reached from bench/ (outside vulture's paths): bench.count's `engine` loop drives the engine in a run's settings
_.engine_settings

"""The training loop: skorch nets with the papers' losses, callbacks, epochs, accelerate.

The names below are the package's public API; the code lives in its
private modules, imported on first use.
"""

from skattn._compat import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "AttentionNet": "skattn.training._net",
    "AttentionMultiLabelNet": "skattn.training._net",
    "AttentionRegressionNet": "skattn.training._net",
    "NetConfig": "skattn.training._net",
    "build_net": "skattn.training._build",
    "OPTIMIZERS": "skattn.training._net",
    "RestoreLastEpoch": "skattn.training._net",
    "ReleaseMemory": "skattn.training._net",
    "ValidationMacroF1": "skattn.training._net",
    "GradientValueClipping": "skattn.training._net",
    "EpochChoice": "skattn.training._epochs",
    "auto_epochs": "skattn.training._epochs",
    "AcceleratedAttentionNet": "skattn.training._accelerated",
    "AcceleratedAttentionMultiLabelNet": "skattn.training._accelerated",
    "AcceleratedAttentionRegressionNet": "skattn.training._accelerated",
    "bf16_recurrent_kernels": "skattn.training._accelerated",
    "check_accelerator": "skattn.training._accelerated",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

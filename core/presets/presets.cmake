# Every built-in preset, as family/name.json under core/presets. The file name is the
# preset's name; the folder its family.
set(DLCOST_PRESET_FILES
  cnn/mlp_mnist.json
  cnn/alexnet.json
)

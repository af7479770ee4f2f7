# add_lab() and the manifest labgrade reads. Filled in below.
function(labkit_write_manifest)
endfunction()

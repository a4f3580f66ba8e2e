# The Vulkan ceiling engine (src/engines/vulkan, issue 13): torch-free, linked
# into the front end. The loader is opened at run time; the build needs only
# the Vulkan headers (Debian: libvulkan-dev) and glslc (Debian: glslc) to
# compile shaders/*.comp to SPIR-V, embedded with EmbedFiles.cmake. Without
# either, the engine is a stub that says so (and this file says it here).
find_program(ACCEL_GLSLC glslc)
# The int8 dot product shader is SPIR-V assembly (glslc rejects
# GL_EXT_integer_dot_product): spirv-as and spirv-val (Debian: spirv-tools)
# assemble and validate it; without them the engine is built without it and
# each device's notes say the int8 row is left out.
find_program(ACCEL_SPIRV_AS spirv-as)
find_program(ACCEL_SPIRV_VAL spirv-val)
if(CMAKE_CROSSCOMPILING AND WIN32)
  # mingw-w64: the cross-compiler must never see /usr/include (glibc), so
  # Debian's Vulkan headers (plain C, Windows-aware through vk_platform.h) are
  # staged one folder each, as MingwDependencies.cmake does for fmt and CLI11.
  # vulkan-1.dll is opened at run time, as libvulkan.so.1 is on Linux.
  if(EXISTS /usr/include/vulkan/vulkan.h)
    set(_vk_stage ${CMAKE_BINARY_DIR}/host-headers-vulkan)
    file(MAKE_DIRECTORY ${_vk_stage})
    foreach(_folder vulkan vk_video)
      if(EXISTS /usr/include/${_folder})
        file(CREATE_LINK /usr/include/${_folder} ${_vk_stage}/${_folder} SYMBOLIC)
      endif()
    endforeach()
    set(ACCEL_VULKAN_INCLUDE_DIR ${_vk_stage} CACHE PATH "Vulkan headers (staged for mingw)" FORCE)
  endif()
else()
  find_path(ACCEL_VULKAN_INCLUDE_DIR vulkan/vulkan.h)
endif()
set(_vk ${CMAKE_SOURCE_DIR}/src/engines/vulkan)
add_library(accel_vulkan STATIC ${_vk}/ceiling.cpp)
target_link_libraries(accel_vulkan PUBLIC accel_platform)
target_compile_options(accel_vulkan PRIVATE ${ACCEL_WARNINGS})
if(ACCEL_GLSLC AND ACCEL_VULKAN_INCLUDE_DIR)
  set(_spv_entries "")
  set(_spv_files "")
  foreach(_name fma_fp32 fma_fp16 fill copy read)
    set(_spv ${CMAKE_BINARY_DIR}/generated/vulkan/${_name}.spv)
    add_custom_command(OUTPUT ${_spv}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated/vulkan
      COMMAND ${ACCEL_GLSLC} --target-env=vulkan1.1 -O ${_vk}/shaders/${_name}.comp -o ${_spv}
      DEPENDS ${_vk}/shaders/${_name}.comp
      COMMENT "glslc ${_name}.comp" VERBATIM)
    list(APPEND _spv_entries "${_name}=${_spv}")
    list(APPEND _spv_files ${_spv})
  endforeach()
  if(ACCEL_SPIRV_AS AND ACCEL_SPIRV_VAL)
    set(_spv ${CMAKE_BINARY_DIR}/generated/vulkan/dot_int8.spv)
    add_custom_command(OUTPUT ${_spv}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated/vulkan
      COMMAND ${ACCEL_SPIRV_AS} --target-env vulkan1.1 ${_vk}/shaders/dot_int8.spvasm -o ${_spv}
      COMMAND ${ACCEL_SPIRV_VAL} --target-env vulkan1.1 ${_spv}
      DEPENDS ${_vk}/shaders/dot_int8.spvasm
      COMMENT "spirv-as dot_int8.spvasm" VERBATIM)
    list(APPEND _spv_entries "dot_int8=${_spv}")
    list(APPEND _spv_files ${_spv})
    set(_int8 1)
    set(_int8_note "with the int8 dot product (spirv-as: ${ACCEL_SPIRV_AS})")
  else()
    set(_int8 0)
    set(_int8_note "WITHOUT the int8 dot product: no spirv-as/spirv-val (Debian: apt install spirv-tools)")
  endif()
  set(_shaders_cpp ${CMAKE_BINARY_DIR}/generated/vulkan_shaders.cpp)
  string(REPLACE ";" "|" _spv_arg "${_spv_entries}")
  add_custom_command(OUTPUT ${_shaders_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${_shaders_cpp} -DNAMESPACE=accel::vulkan::shaders
            "-DFILES=${_spv_arg}" -P ${CMAKE_SOURCE_DIR}/cmake/EmbedFiles.cmake
    DEPENDS ${_spv_files} ${CMAKE_SOURCE_DIR}/cmake/EmbedFiles.cmake
    COMMENT "Embedding the Vulkan compute shaders (SPIR-V)" VERBATIM)
  target_sources(accel_vulkan PRIVATE ${_vk}/runtime.cpp ${_vk}/gpu.cpp ${_vk}/measure.cpp ${_shaders_cpp})
  target_compile_definitions(accel_vulkan PRIVATE ACCEL_VULKAN_INT8=${_int8})
  target_include_directories(accel_vulkan SYSTEM PRIVATE ${ACCEL_VULKAN_INCLUDE_DIR})
  # Vulkan structs are zero-initialised from their sType alone ({VK_STRUCTURE_TYPE_...}).
  set_source_files_properties(${_vk}/runtime.cpp ${_vk}/gpu.cpp ${_vk}/measure.cpp
                              PROPERTIES COMPILE_OPTIONS -Wno-missing-field-initializers)
  set(ACCEL_WITH_VULKAN ON)
  message(STATUS "accel-doctor: Vulkan ceiling engine built (glslc: ${ACCEL_GLSLC}), ${_int8_note}")
else()
  target_sources(accel_vulkan PRIVATE ${_vk}/runtime_stub.cpp)
  set(ACCEL_WITH_VULKAN OFF)
  set(_missing "")
  if(NOT ACCEL_GLSLC)
    list(APPEND _missing "glslc")
  endif()
  if(NOT ACCEL_VULKAN_INCLUDE_DIR)
    list(APPEND _missing "vulkan/vulkan.h")
  endif()
  message(STATUS "accel-doctor: Vulkan ceiling engine NOT built: no ${_missing} (Debian: apt install glslc libvulkan-dev); `bench --vulkan` will say so")
endif()

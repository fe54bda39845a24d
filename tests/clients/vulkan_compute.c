// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Mesa's Vulkan driver on the CPU (lavapipe), as a program that computes
// with it would use it: ROUNDS compute pipelines are made from SPIR-V (the
// shader of tests/clients/vulkan_inputs, compiled by glslangValidator at
// build time), each with its own specialization constant, so lavapipe
// compiles a new shader through gallivm and LLVM-C every time; THREADS
// threads make them at once (pipeline r by thread r % THREADS). Then each
// runs over a buffer of N integers, in order, and the program prints a
// checksum of what came back. tests/clients/vulkan_test.py runs it with
// and without ownsan.
//
// Usage: vulkan_compute SHADER.spv ROUNDS THREADS
#include <vulkan/vulkan.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4096 };

#define CHECK(call)                                                            \
  do {                                                                         \
    VkResult r_ = (call);                                                      \
    if (r_ != VK_SUCCESS) {                                                    \
      fprintf(stderr, "%s failed: %d\n", #call, (int)r_);                      \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

static uint32_t *read_spirv(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint32_t *words = malloc((size_t)n);
  if (!words || fread(words, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  fclose(f);
  *size = (size_t)n;
  return words;
}

struct Maker {
  VkDevice dev;
  VkShaderModule shader;
  VkPipelineLayout layout;
  VkPipeline *pipelines;
  int rounds, threads, first;
};

// Makes the pipelines of rounds first, first + threads, ...
static void *make_pipelines(void *arg) {
  struct Maker *m = arg;
  for (int round = m->first; round < m->rounds; round += m->threads) {
    // The shader's constant (its multiplier) differs each round: a new
    // pipeline, compiled anew.
    uint32_t factor = (uint32_t)round + 3;
    VkSpecializationMapEntry entry = {
        .constantID = 0, .offset = 0, .size = sizeof factor};
    VkSpecializationInfo spec = {.mapEntryCount = 1,
                                 .pMapEntries = &entry,
                                 .dataSize = sizeof factor,
                                 .pData = &factor};
    VkComputePipelineCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = m->shader,
                  .pName = "main",
                  .pSpecializationInfo = &spec},
        .layout = m->layout};
    CHECK(vkCreateComputePipelines(m->dev, VK_NULL_HANDLE, 1, &cpi, NULL,
                                   &m->pipelines[round]));
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: vulkan_compute SHADER.spv ROUNDS THREADS\n");
    return 2;
  }
  int rounds = atoi(argv[2]), threads = atoi(argv[3]);
  if (rounds < 1 || threads < 1 || threads > 16) {
    fprintf(stderr, "ROUNDS >= 1, THREADS 1 - 16\n");
    return 2;
  }
  size_t code_size;
  uint32_t *code = read_spirv(argv[1], &code_size);

  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "ownsan-vulkan-compute",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                              .pApplicationInfo = &app};
  VkInstance instance;
  CHECK(vkCreateInstance(&ici, NULL, &instance));
  uint32_t ndev = 1;
  VkPhysicalDevice phys;
  VkResult er = vkEnumeratePhysicalDevices(instance, &ndev, &phys);
  if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || ndev == 0) {
    fprintf(stderr, "no Vulkan device (is lavapipe installed?)\n");
    return 2;
  }
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(phys, &props);

  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, NULL);
  VkQueueFamilyProperties qprops[16];
  if (nq > 16)
    nq = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qprops);
  uint32_t family = UINT32_MAX;
  for (uint32_t i = 0; i < nq && family == UINT32_MAX; ++i)
    if (qprops[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
      family = i;
  if (family == UINT32_MAX) {
    fprintf(stderr, "no compute queue\n");
    return 2;
  }
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType =
                                     VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = family,
                                 .queueCount = 1,
                                 .pQueuePriorities = &priority};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                            .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci};
  VkDevice dev;
  CHECK(vkCreateDevice(phys, &dci, NULL, &dev));
  VkQueue queue;
  vkGetDeviceQueue(dev, family, 0, &queue);

  // One host-visible buffer of N integers.
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = N * sizeof(uint32_t),
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkBuffer buf;
  CHECK(vkCreateBuffer(dev, &bci, NULL, &buf));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, buf, &req);
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(phys, &mem);
  uint32_t type = UINT32_MAX;
  VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < mem.memoryTypeCount && type == UINT32_MAX; ++i)
    if ((req.memoryTypeBits & (1u << i)) &&
        (mem.memoryTypes[i].propertyFlags & want) == want)
      type = i;
  if (type == UINT32_MAX) {
    fprintf(stderr, "no host-visible memory\n");
    return 2;
  }
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                              .allocationSize = req.size,
                              .memoryTypeIndex = type};
  VkDeviceMemory memory;
  CHECK(vkAllocateMemory(dev, &mai, NULL, &memory));
  CHECK(vkBindBufferMemory(dev, buf, memory, 0));
  uint32_t *data;
  CHECK(vkMapMemory(dev, memory, 0, VK_WHOLE_SIZE, 0, (void **)&data));

  VkDescriptorSetLayoutBinding binding = {
      .binding = 0,
      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
      .descriptorCount = 1,
      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo dslci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = 1,
      .pBindings = &binding};
  VkDescriptorSetLayout dsl;
  CHECK(vkCreateDescriptorSetLayout(dev, &dslci, NULL, &dsl));
  VkPipelineLayoutCreateInfo plci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &dsl};
  VkPipelineLayout layout;
  CHECK(vkCreatePipelineLayout(dev, &plci, NULL, &layout));
  VkDescriptorPoolSize pool_size = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .descriptorCount = 1};
  VkDescriptorPoolCreateInfo dpci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .maxSets = 1,
      .poolSizeCount = 1,
      .pPoolSizes = &pool_size};
  VkDescriptorPool pool;
  CHECK(vkCreateDescriptorPool(dev, &dpci, NULL, &pool));
  VkDescriptorSetAllocateInfo dsai = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
      .descriptorPool = pool,
      .descriptorSetCount = 1,
      .pSetLayouts = &dsl};
  VkDescriptorSet set;
  CHECK(vkAllocateDescriptorSets(dev, &dsai, &set));
  VkDescriptorBufferInfo dbi = {.buffer = buf, .range = VK_WHOLE_SIZE};
  VkWriteDescriptorSet wds = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                              .dstSet = set,
                              .descriptorCount = 1,
                              .descriptorType =
                                  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                              .pBufferInfo = &dbi};
  vkUpdateDescriptorSets(dev, 1, &wds, 0, NULL);

  VkShaderModuleCreateInfo smci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = code_size,
      .pCode = code};
  VkShaderModule shader;
  CHECK(vkCreateShaderModule(dev, &smci, NULL, &shader));
  VkCommandPoolCreateInfo cpci = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = family};
  VkCommandPool cmd_pool;
  CHECK(vkCreateCommandPool(dev, &cpci, NULL, &cmd_pool));
  VkCommandBufferAllocateInfo cbai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = cmd_pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1};
  VkCommandBuffer cmd;
  CHECK(vkAllocateCommandBuffers(dev, &cbai, &cmd));

  VkPipeline *pipelines = calloc((size_t)rounds, sizeof *pipelines);
  struct Maker makers[16];
  pthread_t tids[16];
  for (int t = 0; t < threads; ++t) {
    makers[t] =
        (struct Maker){dev, shader, layout, pipelines, rounds, threads, t};
    if (pthread_create(&tids[t], NULL, make_pipelines, &makers[t]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 2;
    }
  }
  for (int t = 0; t < threads; ++t)
    pthread_join(tids[t], NULL);

  uint64_t checksum = 0;
  for (int round = 0; round < rounds; ++round) {
    for (uint32_t i = 0; i < N; ++i)
      data[i] = i;
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    CHECK(vkBeginCommandBuffer(cmd, &begin));
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[round]);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1,
                            &set, 0, NULL);
    vkCmdDispatch(cmd, N / 64, 1, 1);
    CHECK(vkEndCommandBuffer(cmd));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &cmd};
    CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
    CHECK(vkQueueWaitIdle(queue));
    for (uint32_t i = 0; i < N; ++i)
      checksum = checksum * 31 + data[i];
    vkDestroyPipeline(dev, pipelines[round], NULL);
  }
  free(pipelines);

  vkDestroyCommandPool(dev, cmd_pool, NULL);
  vkDestroyShaderModule(dev, shader, NULL);
  vkDestroyDescriptorPool(dev, pool, NULL);
  vkDestroyPipelineLayout(dev, layout, NULL);
  vkDestroyDescriptorSetLayout(dev, dsl, NULL);
  vkUnmapMemory(dev, memory);
  vkFreeMemory(dev, memory, NULL);
  vkDestroyBuffer(dev, buf, NULL);
  vkDestroyDevice(dev, NULL);
  vkDestroyInstance(instance, NULL);
  free(code);
  printf("device: %s\n", props.deviceName);
  printf("rounds: %d, threads: %d, checksum: %llu\n", rounds, threads,
         (unsigned long long)checksum);
  return 0;
}

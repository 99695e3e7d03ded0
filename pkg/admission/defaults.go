package admission

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultObject applies the API server's defaults for the fields of
// built-in workloads and Services that policies most often read, before
// admission sees the object: a Deployment's replicas, a container's
// imagePullPolicy. Charts leave them out (an HPA-managed Deployment has no
// replicas), and without them a policy such as "object.spec.replicas <= 5"
// would fail to evaluate where the cluster admits the object. The
// defaults are Kubernetes' own (SetDefaults_* in k8s.io/kubernetes'
// pkg/apis/*/v1), written here for these fields only: that module cannot
// be a dependency. Other fields stay as rendered.
func defaultObject(obj runtime.Object) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		defaultReplicas(&o.Spec.Replicas)
		defaultPodSpec(&o.Spec.Template.Spec, corev1.RestartPolicyAlways)
	case *appsv1.StatefulSet:
		defaultReplicas(&o.Spec.Replicas)
		defaultPodSpec(&o.Spec.Template.Spec, corev1.RestartPolicyAlways)
	case *appsv1.ReplicaSet:
		defaultReplicas(&o.Spec.Replicas)
		defaultPodSpec(&o.Spec.Template.Spec, corev1.RestartPolicyAlways)
	case *appsv1.DaemonSet:
		defaultPodSpec(&o.Spec.Template.Spec, corev1.RestartPolicyAlways)
	case *corev1.ReplicationController:
		defaultReplicas(&o.Spec.Replicas)
		if o.Spec.Template != nil {
			defaultPodSpec(&o.Spec.Template.Spec, corev1.RestartPolicyAlways)
		}
	case *batchv1.Job:
		defaultPodSpec(&o.Spec.Template.Spec, "")
	case *batchv1.CronJob:
		defaultPodSpec(&o.Spec.JobTemplate.Spec.Template.Spec, "")
	case *corev1.Pod:
		defaultPodSpec(&o.Spec, corev1.RestartPolicyAlways)
	case *corev1.Service:
		if o.Spec.Type == "" {
			o.Spec.Type = corev1.ServiceTypeClusterIP
		}
		for i := range o.Spec.Ports {
			if o.Spec.Ports[i].Protocol == "" {
				o.Spec.Ports[i].Protocol = corev1.ProtocolTCP
			}
		}
	}
}

func defaultReplicas(r **int32) {
	if *r == nil {
		one := int32(1)
		*r = &one
	}
}

// defaultPodSpec applies the pod and container defaults; restart is the
// default restartPolicy ("" where the API server has none: a Job's must
// be given).
func defaultPodSpec(s *corev1.PodSpec, restart corev1.RestartPolicy) {
	if s.RestartPolicy == "" {
		s.RestartPolicy = restart
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	if s.TerminationGracePeriodSeconds == nil {
		grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
		s.TerminationGracePeriodSeconds = &grace
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	for _, list := range [][]corev1.Container{s.InitContainers, s.Containers} {
		for i := range list {
			defaultContainer(&list[i])
		}
	}
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
}

// imageTag is an image reference's tag as the API server's defaulting
// reads it: "latest" when there is neither a tag nor a digest, "" when
// there is only a digest.
func imageTag(image string) string {
	name, _, hasDigest := strings.Cut(image, "@")
	last := name[strings.LastIndex(name, "/")+1:]
	if i := strings.LastIndex(last, ":"); i >= 0 {
		return last[i+1:]
	}
	if hasDigest {
		return ""
	}
	return "latest"
}
